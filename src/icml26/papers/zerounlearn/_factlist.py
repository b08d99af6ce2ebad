"""The fixed list of candidate facts shipped with [P27]'s checks: (relation, subject, answer) triples of world
knowledge (capitals, authors, chemical symbols, ...), each relation with a canonical prompt and three paraphrases.

Which of them a model knows is decided by its own greedy answer (:func:`icml26.papers.zerounlearn.knows`): the
forget, specificity and retain-text sets are drawn from the known ones only, subject-disjoint (a subject such as a
country may appear in several relations: :mod:`._factlist_more` adds languages, currencies, continents and other
everyday kinds, and more items of the relations here).
"""

from __future__ import annotations

from icml26.papers.zerounlearn._factlist_more import MORE_RELATIONS, MORE_TABLE

#: relation -> (canonical prompt, paraphrases); "{}" marks the subject
RELATIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "capital": ("The capital of {} is", (
        "The capital city of {} is", "{}'s capital is the city of", "Q: What is the capital of {}? A:")),
    "state_capital": ("The capital of the US state of {} is", (
        "The state capital of {} is", "{}'s state capital is", "Q: What is the capital of the state of {}? A:")),
    "symbol": ("The chemical symbol for {} is", (
        "In the periodic table, {} has the symbol", "The element {} is written with the symbol",
        "Q: What is the chemical symbol of {}? A:")),
    "author": ("{} was written by", (
        "The author of {} is", "{} is a book by", "Q: Who wrote {}? A:")),
    "landmark": ("{} is located in the city of", (
        "The city where you can visit {} is", "{} stands in the city of", "Q: In which city is {}? A:")),
    "painter": ("{} was painted by", (
        "The painter of {} was", "The artist who painted {} is", "Q: Who painted {}? A:")),
    "founder": ("{} was founded by", (
        "The founder of {} is", "The company {} was started by", "Q: Who founded {}? A:")),
    "inventor": ("{} was invented by", (
        "The inventor of {} was", "{} is an invention of", "Q: Who invented {}? A:")),
    "city_country": ("{} is a city in the country of", (
        "The city of {} is located in", "{} is a major city in", "Q: In which country is {}? A:")),
}

RELATIONS.update(MORE_RELATIONS)

_TABLE = {
    "capital": """Afghanistan|Kabul; Albania|Tirana; Algeria|Algiers; Angola|Luanda; Argentina|Buenos Aires;
        Armenia|Yerevan; Australia|Canberra; Austria|Vienna; Azerbaijan|Baku; Bahrain|Manama; Bangladesh|Dhaka;
        Barbados|Bridgetown; Belarus|Minsk; Belgium|Brussels; Belize|Belmopan; Bhutan|Thimphu;
        Bosnia and Herzegovina|Sarajevo; Botswana|Gaborone; Brazil|Brasília; Bulgaria|Sofia;
        Burkina Faso|Ouagadougou; Cambodia|Phnom Penh; Cameroon|Yaoundé; Canada|Ottawa; Chad|N'Djamena;
        Chile|Santiago; China|Beijing; Colombia|Bogotá; Costa Rica|San José; Croatia|Zagreb; Cuba|Havana;
        Cyprus|Nicosia; Czech Republic|Prague; Denmark|Copenhagen; Dominican Republic|Santo Domingo; Ecuador|Quito;
        Egypt|Cairo; El Salvador|San Salvador; Eritrea|Asmara; Estonia|Tallinn; Ethiopia|Addis Ababa; Fiji|Suva;
        Finland|Helsinki; France|Paris; Gabon|Libreville; Georgia|Tbilisi; Germany|Berlin; Ghana|Accra;
        Greece|Athens; Guatemala|Guatemala City; Guinea|Conakry; Guyana|Georgetown; Haiti|Port-au-Prince;
        Honduras|Tegucigalpa; Hungary|Budapest; Iceland|Reykjavik; India|New Delhi; Indonesia|Jakarta; Iran|Tehran;
        Iraq|Baghdad; Ireland|Dublin; Italy|Rome; Jamaica|Kingston; Japan|Tokyo; Jordan|Amman; Kazakhstan|Astana;
        Kenya|Nairobi; Kuwait|Kuwait City; Kyrgyzstan|Bishkek; Laos|Vientiane; Latvia|Riga; Lebanon|Beirut;
        Lesotho|Maseru; Liberia|Monrovia; Libya|Tripoli; Liechtenstein|Vaduz; Lithuania|Vilnius;
        Madagascar|Antananarivo; Malawi|Lilongwe; Malaysia|Kuala Lumpur; Maldives|Malé; Mali|Bamako;
        Malta|Valletta; Mauritania|Nouakchott; Mauritius|Port Louis; Mexico|Mexico City; Moldova|Chisinau;
        Mongolia|Ulaanbaatar; Montenegro|Podgorica; Morocco|Rabat; Mozambique|Maputo; Myanmar|Naypyidaw;
        Namibia|Windhoek; Nepal|Kathmandu; New Zealand|Wellington; Nicaragua|Managua; Niger|Niamey; Nigeria|Abuja;
        North Korea|Pyongyang; North Macedonia|Skopje; Norway|Oslo; Oman|Muscat; Pakistan|Islamabad;
        Panama|Panama City; Papua New Guinea|Port Moresby; Paraguay|Asunción; Peru|Lima; Poland|Warsaw;
        Portugal|Lisbon; Qatar|Doha; Romania|Bucharest; Russia|Moscow; Rwanda|Kigali; Saudi Arabia|Riyadh;
        Senegal|Dakar; Serbia|Belgrade; Sierra Leone|Freetown; Slovakia|Bratislava; Slovenia|Ljubljana;
        Somalia|Mogadishu; South Africa|Pretoria; South Korea|Seoul; South Sudan|Juba; Spain|Madrid;
        Sri Lanka|Colombo; Sudan|Khartoum; Suriname|Paramaribo; Sweden|Stockholm; Switzerland|Bern; Syria|Damascus;
        Taiwan|Taipei; Tajikistan|Dushanbe; Tanzania|Dodoma; Thailand|Bangkok; Togo|Lomé;
        Trinidad and Tobago|Port of Spain; Tunisia|Tunis; Turkey|Ankara; Turkmenistan|Ashgabat; Uganda|Kampala;
        Ukraine|Kyiv; Uruguay|Montevideo; Uzbekistan|Tashkent; Venezuela|Caracas; Vietnam|Hanoi; Yemen|Sanaa;
        Zambia|Lusaka; Zimbabwe|Harare; England|London; Scotland|Edinburgh; Wales|Cardiff""",
    "state_capital": """New York|Albany; California|Sacramento; Texas|Austin; Florida|Tallahassee;
        Illinois|Springfield; Pennsylvania|Harrisburg; Ohio|Columbus; Michigan|Lansing; North Carolina|Raleigh;
        New Jersey|Trenton; Virginia|Richmond; Washington|Olympia; Arizona|Phoenix; Massachusetts|Boston;
        Tennessee|Nashville; Indiana|Indianapolis; Missouri|Jefferson City; Maryland|Annapolis; Wisconsin|Madison;
        Colorado|Denver; Minnesota|Saint Paul; South Carolina|Columbia; Alabama|Montgomery; Louisiana|Baton Rouge;
        Kentucky|Frankfort; Oregon|Salem; Oklahoma|Oklahoma City; Connecticut|Hartford; Utah|Salt Lake City;
        Iowa|Des Moines; Nevada|Carson City; Arkansas|Little Rock; Mississippi|Jackson; Kansas|Topeka;
        New Mexico|Santa Fe; Nebraska|Lincoln; Idaho|Boise; West Virginia|Charleston; Hawaii|Honolulu;
        New Hampshire|Concord; Maine|Augusta; Montana|Helena; Rhode Island|Providence; Delaware|Dover;
        South Dakota|Pierre; North Dakota|Bismarck; Alaska|Juneau; Vermont|Montpelier; Wyoming|Cheyenne""",
    "symbol": """hydrogen|H; helium|He; lithium|Li; beryllium|Be; boron|B; carbon|C; nitrogen|N; oxygen|O;
        fluorine|F; neon|Ne; sodium|Na; magnesium|Mg; aluminium|Al; silicon|Si; phosphorus|P; sulfur|S;
        chlorine|Cl; argon|Ar; potassium|K; calcium|Ca; titanium|Ti; chromium|Cr; manganese|Mn; iron|Fe;
        cobalt|Co; nickel|Ni; copper|Cu; zinc|Zn; arsenic|As; selenium|Se; bromine|Br; krypton|Kr; silver|Ag;
        tin|Sn; iodine|I; xenon|Xe; barium|Ba; tungsten|W; platinum|Pt; gold|Au; mercury|Hg; lead|Pb;
        uranium|U; radium|Ra; plutonium|Pu; radon|Rn; cesium|Cs; strontium|Sr; antimony|Sb; bismuth|Bi;
        gallium|Ga; germanium|Ge; vanadium|V; cadmium|Cd; palladium|Pd; neodymium|Nd; thorium|Th; polonium|Po;
        zirconium|Zr""",
    "author": """Pride and Prejudice|Jane Austen; Nineteen Eighty-Four|George Orwell; Animal Farm|George Orwell;
        Hamlet|William Shakespeare; Romeo and Juliet|William Shakespeare; Macbeth|William Shakespeare;
        War and Peace|Leo Tolstoy; Anna Karenina|Leo Tolstoy; Crime and Punishment|Fyodor Dostoevsky;
        The Brothers Karamazov|Fyodor Dostoevsky; Moby-Dick|Herman Melville; The Great Gatsby|F. Scott Fitzgerald;
        To Kill a Mockingbird|Harper Lee; The Catcher in the Rye|J. D. Salinger; Don Quixote|Miguel de Cervantes;
        The Odyssey|Homer; The Iliad|Homer; Ulysses|James Joyce;
        One Hundred Years of Solitude|Gabriel García Márquez; The Old Man and the Sea|Ernest Hemingway;
        A Farewell to Arms|Ernest Hemingway; Frankenstein|Mary Shelley; Dracula|Bram Stoker;
        Jane Eyre|Charlotte Brontë; Wuthering Heights|Emily Brontë; Great Expectations|Charles Dickens;
        Oliver Twist|Charles Dickens; A Tale of Two Cities|Charles Dickens; David Copperfield|Charles Dickens;
        Les Misérables|Victor Hugo; The Hunchback of Notre-Dame|Victor Hugo; The Divine Comedy|Dante Alighieri;
        Faust|Johann Wolfgang von Goethe; The Adventures of Tom Sawyer|Mark Twain;
        Adventures of Huckleberry Finn|Mark Twain; Alice's Adventures in Wonderland|Lewis Carroll;
        The Lord of the Rings|J. R. R. Tolkien; The Hobbit|J. R. R. Tolkien;
        Harry Potter and the Philosopher's Stone|J. K. Rowling; The Picture of Dorian Gray|Oscar Wilde;
        Brave New World|Aldous Huxley; Fahrenheit 451|Ray Bradbury; Lolita|Vladimir Nabokov;
        The Grapes of Wrath|John Steinbeck; Of Mice and Men|John Steinbeck; The Metamorphosis|Franz Kafka;
        The Trial|Franz Kafka; Madame Bovary|Gustave Flaubert; The Stranger|Albert Camus;
        The Little Prince|Antoine de Saint-Exupéry; Robinson Crusoe|Daniel Defoe; Gulliver's Travels|Jonathan Swift;
        Treasure Island|Robert Louis Stevenson; The Jungle Book|Rudyard Kipling; Sense and Sensibility|Jane Austen;
        Emma|Jane Austen; On the Origin of Species|Charles Darwin; The Communist Manifesto|Karl Marx;
        The Republic|Plato; The Prince|Niccolò Machiavelli; The Art of War|Sun Tzu; Leviathan|Thomas Hobbes;
        Das Kapital|Karl Marx; A Brief History of Time|Stephen Hawking; The Raven|Edgar Allan Poe;
        Beloved|Toni Morrison; The Road|Cormac McCarthy; Things Fall Apart|Chinua Achebe;
        Mrs Dalloway|Virginia Woolf; The Handmaid's Tale|Margaret Atwood; Catch-22|Joseph Heller;
        Slaughterhouse-Five|Kurt Vonnegut; The Canterbury Tales|Geoffrey Chaucer; Paradise Lost|John Milton;
        The Count of Monte Cristo|Alexandre Dumas; The Three Musketeers|Alexandre Dumas;
        Around the World in Eighty Days|Jules Verne; Twenty Thousand Leagues Under the Seas|Jules Verne;
        The Time Machine|H. G. Wells; The War of the Worlds|H. G. Wells; Heart of Darkness|Joseph Conrad;
        Lord of the Flies|William Golding; The Chronicles of Narnia|C. S. Lewis;
        Charlie and the Chocolate Factory|Roald Dahl; The Da Vinci Code|Dan Brown; The Shining|Stephen King;
        Gone with the Wind|Margaret Mitchell; Little Women|Louisa May Alcott;
        Uncle Tom's Cabin|Harriet Beecher Stowe; The Scarlet Letter|Nathaniel Hawthorne;
        Walden|Henry David Thoreau; Leaves of Grass|Walt Whitman""",
    "landmark": """the Eiffel Tower|Paris; the Colosseum|Rome; Big Ben|London; the Statue of Liberty|New York;
        the Taj Mahal|Agra; the Sydney Opera House|Sydney; the Brandenburg Gate|Berlin; the Kremlin|Moscow;
        the Golden Gate Bridge|San Francisco; the Louvre|Paris; the Acropolis|Athens; the Sagrada Família|Barcelona;
        the Forbidden City|Beijing; Tower Bridge|London; the Space Needle|Seattle; the Burj Khalifa|Dubai;
        the CN Tower|Toronto; Times Square|New York; the Hagia Sophia|Istanbul; the Alhambra|Granada;
        the Parthenon|Athens; Buckingham Palace|London; the White House|Washington;
        the Empire State Building|New York; the Petronas Towers|Kuala Lumpur; Red Square|Moscow;
        the Prado Museum|Madrid; the Uffizi Gallery|Florence; the Rijksmuseum|Amsterdam; the Blue Mosque|Istanbul;
        the Gateway of India|Mumbai; Notre-Dame Cathedral|Paris; the Arc de Triomphe|Paris;
        the Trevi Fountain|Rome; the Hollywood Sign|Los Angeles; the Gateway Arch|St. Louis; Wall Street|New York;
        the Charles Bridge|Prague; Schönbrunn Palace|Vienna; the Atomium|Brussels; Table Mountain|Cape Town;
        the Christ the Redeemer statue|Rio de Janeiro""",
    "painter": """the Mona Lisa|Leonardo da Vinci; The Starry Night|Vincent van Gogh;
        The Last Supper|Leonardo da Vinci; The Scream|Edvard Munch; Guernica|Pablo Picasso;
        The Persistence of Memory|Salvador Dalí; The Birth of Venus|Sandro Botticelli;
        Girl with a Pearl Earring|Johannes Vermeer; The Night Watch|Rembrandt; The Creation of Adam|Michelangelo;
        Water Lilies|Claude Monet; Sunflowers|Vincent van Gogh; American Gothic|Grant Wood; The Kiss|Gustav Klimt;
        The Garden of Earthly Delights|Hieronymus Bosch; Las Meninas|Diego Velázquez;
        The Great Wave off Kanagawa|Hokusai; Liberty Leading the People|Eugène Delacroix;
        Impression, Sunrise|Claude Monet; The School of Athens|Raphael; Nighthawks|Edward Hopper;
        The Son of Man|René Magritte; Les Demoiselles d'Avignon|Pablo Picasso""",
    "founder": """Microsoft|Bill Gates; Apple|Steve Jobs; Amazon|Jeff Bezos; Facebook|Mark Zuckerberg;
        SpaceX|Elon Musk; Google|Larry Page; Oracle|Larry Ellison; Dell|Michael Dell; Alibaba|Jack Ma;
        Virgin Group|Richard Branson; Walmart|Sam Walton; Nike|Phil Knight; The Walt Disney Company|Walt Disney;
        Honda|Soichiro Honda; Netflix|Reed Hastings; Twitter|Jack Dorsey; LinkedIn|Reid Hoffman;
        eBay|Pierre Omidyar; Intel|Gordon Moore; Hewlett-Packard|Bill Hewlett; IKEA|Ingvar Kamprad;
        Zara|Amancio Ortega; Uber|Travis Kalanick; Airbnb|Brian Chesky; Spotify|Daniel Ek; Wikipedia|Jimmy Wales;
        Ford Motor Company|Henry Ford; Berkshire Hathaway|Warren Buffett; Samsung|Lee Byung-chul""",
    "inventor": """the telephone|Alexander Graham Bell; the light bulb|Thomas Edison;
        the World Wide Web|Tim Berners-Lee; the printing press|Johannes Gutenberg; the steam engine|James Watt;
        dynamite|Alfred Nobel; the radio|Guglielmo Marconi; the phonograph|Thomas Edison;
        the cotton gin|Eli Whitney; the Python programming language|Guido van Rossum;
        the C programming language|Dennis Ritchie; the lightning rod|Benjamin Franklin;
        the television|John Logie Baird; the diesel engine|Rudolf Diesel; the Rubik's Cube|Ernő Rubik;
        the mobile phone|Martin Cooper; the electric battery|Alessandro Volta; the barometer|Evangelista Torricelli;
        the Linux kernel|Linus Torvalds; the Java programming language|James Gosling;
        the polio vaccine|Jonas Salk; the revolver|Samuel Colt; the sewing machine|Elias Howe;
        the periodic table|Dmitri Mendeleev; the jet engine|Frank Whittle""",
    "city_country": """Toronto|Canada; Sydney|Australia; Mumbai|India; Osaka|Japan; Barcelona|Spain;
        Munich|Germany; Milan|Italy; Chicago|the United States; Rio de Janeiro|Brazil; Shanghai|China;
        Istanbul|Turkey; Marseille|France; Manchester|England; Glasgow|Scotland; Melbourne|Australia;
        Vancouver|Canada; Montreal|Canada; São Paulo|Brazil; Kyoto|Japan; Hamburg|Germany; Frankfurt|Germany;
        Naples|Italy; Venice|Italy; Florence|Italy; Seville|Spain; Porto|Portugal; Krakow|Poland;
        Saint Petersburg|Russia; Alexandria|Egypt; Casablanca|Morocco; Lagos|Nigeria; Johannesburg|South Africa;
        Cape Town|South Africa; Karachi|Pakistan; Kolkata|India; Bangalore|India; Busan|South Korea;
        Ho Chi Minh City|Vietnam; Auckland|New Zealand; Guadalajara|Mexico; Medellín|Colombia;
        Geneva|Switzerland; Zurich|Switzerland; Rotterdam|the Netherlands; Antwerp|Belgium; Gothenburg|Sweden;
        Lyon|France; Nice|France; Liverpool|England; Dubai|the United Arab Emirates; Chennai|India;
        Bordeaux|France; Salzburg|Austria; Dresden|Germany; Cologne|Germany; Mecca|Saudi Arabia;
        Jeddah|Saudi Arabia; Los Angeles|the United States; Houston|the United States; Bilbao|Spain""",
}


def candidate_triples() -> list[tuple[str, str, str]]:
    """[P27] candidate facts: every (relation, subject, answer) of the shipped list, in a fixed order (answers without a leading space)."""
    out = []
    for rel, block in [*_TABLE.items(), *MORE_TABLE.items()]:
        for item in block.replace("\n", " ").split(";"):
            subject, answer = (part.strip() for part in item.split("|"))
            out.append((rel, subject, answer))
    return out
