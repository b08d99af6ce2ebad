"""[P13] Is Your LLM Overcharging You? Tokenization, Transparency, and Incentives

What it is: under pay-per-token pricing a provider bills ``r_t · |t̃|`` for a reported token sequence t̃ whose string
is the output s; the user cannot tell which tokenization the model actually produced, so a provider gains by
reporting a longer one. Transparency (reporting tokens the model could have sampled: each inside the top-p set of its
next-token distribution at temperature T) limits what can be reported, and finding the longest plausible
tokenization is NP-hard. The paper's heuristic (Alg. 1) splits the highest-id token of the sequence into its best
pair of vocabulary tokens, m times, and bills the result if one forward pass shows every token plausible. Pricing
each token linearly in its character count (``r_c · chars``) is the only additive mechanism without that
incentive, and ``r_c = r_t E[#tokens] / E[#chars]`` keeps the provider's average revenue.

API (any fast transformers tokenizer, ``tokenizers.Tokenizer`` or ``tiktoken.Encoding``; any transformers causal LM):
``vocabulary``, ``alternative_tokenizations`` (lazy), ``count_tokenizations``, ``random_tokenizations`` (uniform),
``longest_tokenization``, ``best_splits``, ``misreport``, ``top_p_set``, ``plausibility``, ``PrefixVerifier``
(fast re-checks reusing the truthful run's KV cache), ``overcharge``, ``longest_plausible_tokenization`` (exact,
exponential), ``price`` (``per_token`` / ``per_char``), ``margin_preserving_char_price``, ``sample_outputs``.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``plausible_overcharge`` — the heuristic overcharges plausibly (Abstract, §6); SmolLM2-135M-Instruct at small.
  2. ``heuristic_profitable`` — its forward passes cost less than the extra tokens earn (Abstract, §6); timed.
  3. ``char_pricing_ic`` — per-character prices are invariant to re-tokenization, per-token ones are not (§5).
  4. ``margin_preserving`` — the prescription keeps average revenue (§5).
  5. ``brute_force_bound`` — exhaustive search on short strings is at least the heuristic (§4).

Deviations / reconstructions:
  1. Tokens are byte strings (byte-level BPEs cut UTF-8 characters); a token's character count is its number of
     bytes that start a character, so counts add up to the text's exactly. Lone multi-byte characters are not split
     (as in the authors' code); a highest-id token without a split is skipped rather than stalling.
  2. The top-p set is the smallest prefix of the tokens sorted by probability (ties: lower id first) whose mass
     reaches p; probabilities are softmax(logits / T) in float64.
  3. The paper's models (Llama-3.2, Gemma-3, Ministral-8B), LMSYS prompts and GPU energy readings are not available
     here: SmolLM2-135M-Instruct answers our own prompts in English, Spanish, Russian and Chinese, and cost is CPU
     wall-clock. The smoke budget uses a tiny random Llama over a BPE trained on stdlib docstrings.
"""

from icml26.papers.token_pricing._brute import BruteForce, longest_plausible_tokenization
from icml26.papers.token_pricing._overcharge import Overcharge, overcharge
from icml26.papers.token_pricing._plausible import PrefixVerifier, plausibility, top_p_set
from icml26.papers.token_pricing._pricing import SCHEMES, char_count, margin_preserving_char_price, price
from icml26.papers.token_pricing._prompts import LANGUAGES, PROMPTS, SYSTEM
from icml26.papers.token_pricing._sampling import chat_prompt, sample_outputs
from icml26.papers.token_pricing._tiny import docstring_corpus, tiny_bpe_lm, train_bpe
from icml26.papers.token_pricing._tokenizations import (
                                                        STRATEGIES,
                                                        alternative_tokenizations,
                                                        best_splits,
                                                        count_tokenizations,
                                                        longest_tokenization,
                                                        misreport,
                                                        random_tokenizations,
)
from icml26.papers.token_pricing._vocab import Vocabulary, vocabulary

__all__ = ["LANGUAGES", "PROMPTS", "SCHEMES", "STRATEGIES", "SYSTEM", "BruteForce", "Overcharge", "PrefixVerifier",
           "Vocabulary", "alternative_tokenizations", "best_splits", "char_count", "chat_prompt",
           "count_tokenizations", "docstring_corpus", "longest_plausible_tokenization", "longest_tokenization",
           "margin_preserving_char_price", "misreport", "overcharge", "plausibility", "price",
           "random_tokenizations", "sample_outputs", "tiny_bpe_lm", "top_p_set", "train_bpe", "vocabulary"]
