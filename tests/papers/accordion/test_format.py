"""The [P25] step format and the Fold-context builder against hand-built token sequences."""

import pytest

from icml26.papers.accordion import Markers, Step, fold_context, parse_step, split_steps, unfold_context

# tags: <step>=90 </step>=91 </think>=92 <eos>=93; the TLDR marker is three tokens (like "\n\n...TLDR...\n\n")
MK = Markers(step_open=90, step_close=91, end_think=92, eos=93, tldr=(80, 81, 82))
PROMPT = (1, 2, 3)


def _step(tokens):
    return parse_step(tokens, markers=MK, max_summary_tokens=4)


def test_a_step_is_thought_then_summary_with_its_tags():
    s = _step([10, 11, 12, 90, 5, 6, 91])
    assert s.kind == "step" and s.thought == (10, 11, 12) and s.summary == (90, 5, 6, 91)
    assert s.summary_body == (5, 6) and s.answer == () and not s.ended


def test_a_final_step_reads_its_answer_and_whether_it_ended():
    s = _step([10, 11, 92, 7, 8, 93])
    assert s.kind == "final" and s.thought == (10, 11) and s.answer == (7, 8) and s.ended
    cut = _step([10, 11, 92, 7])  # no <eos>: truncated, not ended properly
    assert cut.kind == "final" and not cut.ended


@pytest.mark.parametrize("tokens", [
    [10, 11, 12],                 # no tags at all (a truncated thought)
    [10, 90, 5, 6],               # summary never closed
    [10, 91],                     # closed without opening
    [10, 90, 5, 90, 6, 91],       # two openings
    [10, 90, 1, 2, 3, 4, 5, 91],  # summary of 5 tokens, cap 4
    [10, 93, 90, 5, 91],          # an end of sequence inside a step
    [10, 93, 92, 5, 93],          # <eos> before </think>
    [],                           # nothing generated
])
def test_anything_else_is_malformed(tokens):
    s = _step(tokens)
    assert s.kind == "malformed" and s.summary == () and not s.ended


def test_fold_context_drops_thoughts_keeps_summaries_in_order():
    s1, s2 = _step([10, 11, 12, 90, 5, 91]), _step([13, 14, 90, 6, 7, 91])
    # hand-built: prompt, TLDR, <step> 5 </step>, TLDR, <step> 6 7 </step>
    want = (1, 2, 3, 80, 81, 82, 90, 5, 91, 80, 81, 82, 90, 6, 7, 91)
    assert fold_context(PROMPT, [s1, s2], markers=MK) == want
    assert fold_context(PROMPT, [], markers=MK) == PROMPT
    assert not {10, 11, 12, 13, 14} & set(fold_context(PROMPT, [s1, s2], markers=MK))


def test_unfold_context_keeps_everything():
    s1, s2 = _step([10, 11, 12, 90, 5, 91]), _step([13, 90, 6, 91])
    assert unfold_context(PROMPT, [s1, s2]) == (1, 2, 3, 10, 11, 12, 90, 5, 91, 13, 90, 6, 91)


def test_a_leaf_cannot_be_folded():
    final = _step([10, 92, 7, 93])
    bad = _step([10, 11])
    for leaf in (final, bad):
        with pytest.raises(ValueError, match="steps\\[1\\]"):
            fold_context(PROMPT, [_step([10, 90, 5, 91]), leaf], markers=MK)
    with pytest.raises(TypeError, match="steps\\[0\\]"):
        fold_context(PROMPT, [(10, 90, 5, 91)], markers=MK)  # a raw tuple is not a Step record
    with pytest.raises(ValueError, match="prompt"):
        fold_context([], [], markers=MK)


def test_markers_must_be_distinct():
    with pytest.raises(ValueError, match="distinct"):
        Markers(step_open=1, step_close=1, end_think=2, eos=3, tldr=(4,))
    with pytest.raises(ValueError, match="tldr"):
        Markers(step_open=1, step_close=2, end_think=3, eos=4, tldr=(2,))
    with pytest.raises(ValueError, match="tldr"):
        Markers(step_open=1, step_close=2, end_think=3, eos=4, tldr=())


def test_split_steps_cuts_an_unfold_generation_like_the_fold_rollout():
    gen = [10, 11, 90, 5, 91, 12, 90, 6, 91, 13, 92, 7, 93]
    steps = split_steps(gen, markers=MK, max_steps=6, max_step_tokens=8, max_summary_tokens=4)
    assert [s.kind for s in steps] == ["step", "step", "final"]
    assert [s.tokens for s in steps] == [(10, 11, 90, 5, 91), (12, 90, 6, 91), (13, 92, 7, 93)]
    assert sum((s.tokens for s in steps), ()) == tuple(gen)
    # the step limit: after 2 pieces the trajectory ends on an unfinished step
    two = split_steps(gen, markers=MK, max_steps=2, max_step_tokens=8, max_summary_tokens=4)
    assert [s.kind for s in two] == ["step", "step"]
    # a piece over the step cap is cut there and is malformed; nothing after it is read
    long = split_steps([10, 11, 12, 13, 14, 90, 5, 91, 92, 7, 93], markers=MK, max_steps=6, max_step_tokens=4,
                       max_summary_tokens=4)
    assert [s.tokens for s in long] == [(10, 11, 12, 13)] and long[0].kind == "malformed"
    # a malformed piece ends the branch
    bad = split_steps([10, 90, 1, 2, 3, 4, 5, 91, 92, 7, 93], markers=MK, max_steps=6, max_step_tokens=12,
                      max_summary_tokens=4)
    assert [s.kind for s in bad] == ["malformed"]


def test_a_step_at_exactly_the_cap_is_kept():
    steps = split_steps([10, 90, 5, 91, 92, 7, 93], markers=MK, max_steps=6, max_step_tokens=4,
                        max_summary_tokens=4)
    assert [s.kind for s in steps] == ["step", "final"] and steps[1].ended


def test_step_records_are_frozen_values():
    s = _step([10, 90, 5, 91])
    assert s == Step((10, 90, 5, 91), "step", thought=(10,), summary=(90, 5, 91))
