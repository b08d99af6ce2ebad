"""More candidate facts for [P27]'s checks: everyday kinds a small LM may know (languages, currencies, continents,
antonyms, colours, young animals, brands, athletes, plurals, US cities) and more items of the relations of
:mod:`._factlist` (cities, elements, landmarks). Same format: relation -> "subject|answer; ..." blocks.

Several subjects here also appear in another relation (a country has a capital, a language and a currency); the
experiment draws its forget, specificity and retain-text facts subject-disjoint (:mod:`._experiment`).
"""

from __future__ import annotations

#: relation -> (canonical prompt, paraphrases); "{}" marks the subject
MORE_RELATIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "language": ("The official language of {} is", (
        "The main language spoken in {} is", "In {}, most people speak", "Q: What language is spoken in {}? A:")),
    "currency": ("The currency of {} is the", (
        "The money used in {} is the", "In {}, people pay with the", "Q: What is the currency of {}? A: The")),
    "continent": ("{} is a country on the continent of", (
        "The country {} lies in", "{} is located on the continent of", "Q: On which continent is {}? A:")),
    "opposite": ("The opposite of {} is", (
        "The antonym of {} is", "The word meaning the reverse of {} is", "Q: What is the opposite of {}? A:")),
    "color": ("The usual colour of {} is", (
        "Most {} are the colour", "The colour we see when we look at {} is", "Q: What colour is {}? A:")),
    "young": ("The young of a {} is called a", (
        "A baby {} is known as a", "A newborn {} is called a", "Q: What is a young {} called? A: A")),
    "brand_country": ("{} is a company from the country of", (
        "The company {} comes from", "{} was founded in the country of", "Q: Which country is {} from? A:")),
    "athlete_sport": ("{} is famous for playing the sport of", (
        "The sport played by {} is", "{} became a star in the sport of", "Q: Which sport does {} play? A:")),
    "plural": ("The plural of {} is", (
        "More than one {} are called", "The plural form of the word {} is", "Q: What is the plural of {}? A:")),
    "city_state": ("{} is a city in the US state of", (
        "The city of {} is located in the state of", "{} is a large city in", "Q: In which US state is {}? A:")),
}

MORE_TABLE = {
    "language": """Spain|Spanish; Mexico|Spanish; Argentina|Spanish; Colombia|Spanish; Peru|Spanish; Chile|Spanish;
        Cuba|Spanish; France|French; Germany|German; Austria|German; Italy|Italian; Portugal|Portuguese;
        Brazil|Portuguese; Angola|Portuguese; Japan|Japanese; China|Chinese; South Korea|Korean; North Korea|Korean;
        Russia|Russian; Greece|Greek; Turkey|Turkish; Poland|Polish; Sweden|Swedish; Norway|Norwegian; Denmark|Danish;
        Finland|Finnish; the Netherlands|Dutch; Hungary|Hungarian; Romania|Romanian; Bulgaria|Bulgarian;
        Ukraine|Ukrainian; Czech Republic|Czech; Thailand|Thai; Vietnam|Vietnamese; Iran|Persian; Israel|Hebrew;
        Egypt|Arabic; Saudi Arabia|Arabic; Iraq|Arabic; Syria|Arabic; Morocco|Arabic; Jordan|Arabic;
        Indonesia|Indonesian; Pakistan|Urdu; Bangladesh|Bengali; Iceland|Icelandic; Estonia|Estonian; Latvia|Latvian;
        Lithuania|Lithuanian; Croatia|Croatian; Serbia|Serbian; Slovakia|Slovak; Slovenia|Slovene; Albania|Albanian;
        Georgia|Georgian; Armenia|Armenian; Mongolia|Mongolian; Malaysia|Malay; the United States|English;
        Australia|English; England|English; Ethiopia|Amharic""",
    "currency": """Japan|yen; China|yuan; India|rupee; Russia|ruble; the United Kingdom|pound; the United States|dollar;
        Canada|Canadian dollar; Australia|Australian dollar; Mexico|peso; Brazil|real; South Korea|won;
        Switzerland|Swiss franc; Sweden|krona; Norway|krone; Denmark|krone; Poland|zloty; Turkey|lira; Israel|shekel;
        South Africa|rand; Thailand|baht; Vietnam|dong; Indonesia|rupiah; Saudi Arabia|riyal; Egypt|Egyptian pound;
        Argentina|peso; Chile|peso; Colombia|peso; Philippines|peso; Hungary|forint; Czech Republic|koruna;
        Ukraine|hryvnia; Nigeria|naira; Kenya|shilling; Pakistan|rupee; Malaysia|ringgit; Iran|rial; Germany|euro;
        France|euro; Italy|euro; Spain|euro; Greece|euro; Bangladesh|taka""",
    "continent": """Kenya|Africa; Nigeria|Africa; Ghana|Africa; Ethiopia|Africa; Egypt|Africa; Morocco|Africa;
        Senegal|Africa; Uganda|Africa; Tanzania|Africa; Zambia|Africa; Zimbabwe|Africa; Mali|Africa; Angola|Africa;
        Cameroon|Africa; Sudan|Africa; Somalia|Africa; Algeria|Africa; Tunisia|Africa; Libya|Africa; Namibia|Africa;
        Botswana|Africa; Rwanda|Africa; Madagascar|Africa; Mozambique|Africa; Niger|Africa; Chad|Africa; Japan|Asia;
        China|Asia; India|Asia; Thailand|Asia; Vietnam|Asia; Nepal|Asia; Mongolia|Asia; Pakistan|Asia;
        Bangladesh|Asia; Cambodia|Asia; Laos|Asia; Malaysia|Asia; Indonesia|Asia; South Korea|Asia; Sri Lanka|Asia;
        Kazakhstan|Asia; Afghanistan|Asia; Iran|Asia; Iraq|Asia; Saudi Arabia|Asia; Myanmar|Asia;
        the Philippines|Asia; Bhutan|Asia; Uzbekistan|Asia; North Korea|Asia; Taiwan|Asia; France|Europe;
        Germany|Europe; Italy|Europe; Spain|Europe; Poland|Europe; Sweden|Europe; Norway|Europe; Finland|Europe;
        Austria|Europe; Hungary|Europe; Portugal|Europe; Belgium|Europe; Switzerland|Europe; Ireland|Europe;
        Greece|Europe; Romania|Europe; Denmark|Europe; the Netherlands|Europe; Croatia|Europe; Serbia|Europe;
        Bulgaria|Europe; Ukraine|Europe; Belarus|Europe; Slovakia|Europe; Slovenia|Europe; Estonia|Europe;
        Latvia|Europe; Lithuania|Europe; Iceland|Europe; Brazil|South America; Argentina|South America;
        Chile|South America; Peru|South America; Colombia|South America; Venezuela|South America;
        Ecuador|South America; Bolivia|South America; Uruguay|South America; Paraguay|South America;
        Guyana|South America; Suriname|South America; Canada|North America; Mexico|North America;
        the United States|North America; Guatemala|North America; Cuba|North America; Honduras|North America;
        Nicaragua|North America; Panama|North America; Costa Rica|North America; Jamaica|North America;
        Haiti|North America; Australia|Oceania; New Zealand|Oceania; Fiji|Oceania; Papua New Guinea|Oceania;
        Samoa|Oceania""",
    "opposite": """hot|cold; up|down; big|small; fast|slow; day|night; black|white; good|bad; happy|sad; old|young;
        open|closed; light|dark; high|low; rich|poor; strong|weak; long|short; hard|soft; wet|dry; early|late;
        full|empty; thick|thin; heavy|light; loud|quiet; near|far; inside|outside; left|right; win|lose; love|hate;
        true|false; easy|difficult; clean|dirty; cheap|expensive; friend|enemy; north|south; east|west; push|pull;
        buy|sell; begin|end; alive|dead; war|peace; summer|winter; sweet|sour; top|bottom; front|back; above|below;
        add|subtract; always|never; before|after; entrance|exit; question|answer; start|finish; arrive|leave;
        give|take; remember|forget; increase|decrease; accept|reject""",
    "color": """grass|green; the sky|blue; snow|white; coal|black; blood|red; a banana|yellow; a lemon|yellow;
        milk|white; an orange|orange; a tomato|red; a carrot|orange; chocolate|brown; the sun|yellow;
        a strawberry|red; an emerald|green; a ruby|red; a sapphire|blue; a polar bear|white; a crow|black;
        a flamingo|pink; a lime|green; a cucumber|green; the ocean|blue; a pumpkin|orange; an eggplant|purple;
        a raven|black; a cherry|red; a fire truck|red; a school bus|yellow""",
    "young": """dog|puppy; cat|kitten; cow|calf; sheep|lamb; horse|foal; goat|kid; pig|piglet; duck|duckling;
        chicken|chick; bear|cub; lion|cub; kangaroo|joey; frog|tadpole; deer|fawn; goose|gosling; swan|cygnet;
        owl|owlet; whale|calf; elephant|calf; tiger|cub; fox|cub; wolf|pup; seal|pup; eagle|eaglet;
        butterfly|caterpillar; rabbit|kit""",
    "brand_country": """Toyota|Japan; Honda|Japan; Sony|Japan; Nintendo|Japan; Panasonic|Japan; Mitsubishi|Japan;
        BMW|Germany; Volkswagen|Germany; Mercedes-Benz|Germany; Siemens|Germany; Adidas|Germany; Audi|Germany;
        Porsche|Germany; Bosch|Germany; Fiat|Italy; Ferrari|Italy; Lamborghini|Italy; Gucci|Italy; Prada|Italy;
        Volvo|Sweden; IKEA|Sweden; Ericsson|Sweden; Spotify|Sweden; Samsung|South Korea; Hyundai|South Korea;
        LG|South Korea; Kia|South Korea; Nokia|Finland; Nestlé|Switzerland; Rolex|Switzerland; Lego|Denmark;
        Philips|the Netherlands; Heineken|the Netherlands; Renault|France; Peugeot|France; Chanel|France;
        Airbus|France; Huawei|China; Alibaba|China; Tata|India; Infosys|India; Lenovo|China;
        Skoda|the Czech Republic; Zara|Spain; Seat|Spain""",
    "athlete_sport": """Lionel Messi|football; Cristiano Ronaldo|football; Roger Federer|tennis; Serena Williams|tennis;
        Rafael Nadal|tennis; Novak Djokovic|tennis; Michael Jordan|basketball; LeBron James|basketball;
        Kobe Bryant|basketball; Stephen Curry|basketball; Tiger Woods|golf; Jack Nicklaus|golf; Babe Ruth|baseball;
        Wayne Gretzky|hockey; Tom Brady|football; Pelé|football; Diego Maradona|football; Sachin Tendulkar|cricket;
        Muhammad Ali|boxing; Mike Tyson|boxing; Shaquille O'Neal|basketball; Andre Agassi|tennis;
        Pete Sampras|tennis; Zinedine Zidane|football; David Beckham|football; Neymar|football""",
    "plural": """mouse|mice; child|children; man|men; woman|women; tooth|teeth; foot|feet; goose|geese; person|people;
        ox|oxen; cactus|cacti; knife|knives; leaf|leaves; wolf|wolves; life|lives; wife|wives; half|halves;
        city|cities; baby|babies; box|boxes; bus|buses; potato|potatoes; fish|fish; sheep|sheep; deer|deer;
        analysis|analyses; crisis|crises""",
    "city_state": """Los Angeles|California; San Francisco|California; San Diego|California; Houston|Texas;
        Dallas|Texas; San Antonio|Texas; Miami|Florida; Orlando|Florida; Tampa|Florida; Seattle|Washington;
        Boston|Massachusetts; Detroit|Michigan; Atlanta|Georgia; Denver|Colorado; Las Vegas|Nevada; Portland|Oregon;
        Chicago|Illinois; Philadelphia|Pennsylvania; Pittsburgh|Pennsylvania; New Orleans|Louisiana;
        Memphis|Tennessee; Cleveland|Ohio; Cincinnati|Ohio; Milwaukee|Wisconsin; Minneapolis|Minnesota;
        Kansas City|Missouri; Baltimore|Maryland; Charlotte|North Carolina; Louisville|Kentucky;
        Albuquerque|New Mexico; Tucson|Arizona; Anchorage|Alaska; Buffalo|New York""",
    "city_country": """Yokohama|Japan; Nagoya|Japan; Sapporo|Japan; Hiroshima|Japan; Valencia|Spain; Malaga|Spain;
        Turin|Italy; Palermo|Italy; Bologna|Italy; Genoa|Italy; Stuttgart|Germany; Leipzig|Germany;
        Düsseldorf|Germany; Toulouse|France; Strasbourg|France; Lille|France; Birmingham|England; Leeds|England;
        Bristol|England; Calgary|Canada; Edmonton|Canada; Quebec City|Canada; Brisbane|Australia; Perth|Australia;
        Adelaide|Australia; Guangzhou|China; Shenzhen|China; Chengdu|China; Wuhan|China; Hong Kong|China;
        Hyderabad|India; Pune|India; Lahore|Pakistan; Izmir|Turkey; Antalya|Turkey; Tabriz|Iran; Isfahan|Iran;
        Basra|Iraq; Aleppo|Syria; Marrakesh|Morocco; Mombasa|Kenya; Durban|South Africa; Kano|Nigeria; Luxor|Egypt;
        Gdansk|Poland; Wroclaw|Poland; Brno|the Czech Republic; Thessaloniki|Greece; Bergen|Norway; Malmö|Sweden;
        Tampere|Finland; Aarhus|Denmark; Novosibirsk|Russia; Kazan|Russia; Odessa|Ukraine; Kharkiv|Ukraine;
        Cordoba|Argentina; Rosario|Argentina; Valparaiso|Chile; Cusco|Peru; Recife|Brazil; Salvador|Brazil;
        Monterrey|Mexico; Cancun|Mexico; Surabaya|Indonesia; Cebu|the Philippines""",
    "symbol": """scandium|Sc; rubidium|Rb; yttrium|Y; niobium|Nb; molybdenum|Mo; technetium|Tc; ruthenium|Ru;
        rhodium|Rh; indium|In; tellurium|Te; lanthanum|La; cerium|Ce; europium|Eu; gadolinium|Gd; hafnium|Hf;
        tantalum|Ta; rhenium|Re; osmium|Os; iridium|Ir; thallium|Tl; astatine|At; francium|Fr; actinium|Ac;
        protactinium|Pa; neptunium|Np; americium|Am; curium|Cm; einsteinium|Es; nobelium|No; samarium|Sm; erbium|Er;
        holmium|Ho; lutetium|Lu; praseodymium|Pr; promethium|Pm; terbium|Tb; dysprosium|Dy; thulium|Tm;
        ytterbium|Yb; berkelium|Bk; californium|Cf; fermium|Fm""",
    "landmark": """Westminster Abbey|London; the British Museum|London; the London Eye|London; Central Park|New York;
        the Metropolitan Museum of Art|New York; the Leaning Tower of Pisa|Pisa; the Pantheon|Rome;
        the Spanish Steps|Rome; the Reichstag|Berlin; the Little Mermaid statue|Copenhagen; the Royal Palace|Madrid;
        Park Güell|Barcelona; the Tower of London|London; the Lincoln Memorial|Washington; the Willis Tower|Chicago;
        Alcatraz|San Francisco; the Musée d'Orsay|Paris; the Sacré-Cœur|Paris; the Palace of Versailles|Versailles;
        Edinburgh Castle|Edinburgh; St. Basil's Cathedral|Moscow; the Hermitage Museum|Saint Petersburg;
        the Topkapi Palace|Istanbul; the Grand Palace|Bangkok; the Bund|Shanghai; Tiananmen Square|Beijing;
        Marina Bay Sands|Singapore""",
}
