"""bench/winnability: the published table's run resumes, takes free verdicts and refuses a mixed file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.winnability import __main__ as winnability
from service.engine import GameCode


def test_wilson_interval_matches_the_textbook_values():
    low, high = winnability.wilson(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert winnability.wilson(0, 10)[0] == 0.0
    assert winnability.wilson(10, 10)[1] == pytest.approx(1.0)


def test_a_run_classifies_both_modes_of_each_deal_and_a_restart_adds_nothing(tmp_path):
    out = tmp_path / "run.jsonl"
    winnability.run(out, seed=17, count=4, budget_s=5.0, memory_mb=256, processes=2)
    results = winnability.load(out)
    deals = winnability.deal_numbers(17, 4)
    assert sorted((r["deal"], r["draw"]) for r in results) == sorted((d, m) for d in deals for m in (1, 3))
    for result in results:
        assert result["code"] == str(GameCode(draw=result["draw"], deal=result["deal"]))
        assert result["verdict"] in winnability.VERDICTS
    by_key = {(r["deal"], r["draw"]): r for r in results}
    for deal in deals:
        # The free verdicts go one way only: draw 1 is searched first, so draw 3 may borrow its loss.
        draw1, draw3 = by_key[deal, 1], by_key[deal, 3]
        assert draw1["via"] == "search"
        assert draw3["via"] == ("draw-1" if draw1["verdict"] == "unwinnable" else "search")

    winnability.run(out, seed=17, count=4, budget_s=5.0, memory_mb=256, processes=2)
    assert len(out.read_text().splitlines()) == 8


def test_a_torn_last_line_is_ignored_and_searched_again(tmp_path):
    out = tmp_path / "run.jsonl"
    winnability.run(out, seed=17, count=1, budget_s=5.0, memory_mb=256)
    first, second = out.read_text().splitlines()
    out.write_text(first + "\n" + second[: len(second) // 2])
    winnability.run(out, seed=17, count=1, budget_s=5.0, memory_mb=256)
    results = winnability.load(out)
    assert sorted(r["draw"] for r in results) == [1, 3]


def test_a_file_of_another_experiment_is_refused(tmp_path):
    out = tmp_path / "run.jsonl"
    winnability.run(out, seed=17, count=1, budget_s=5.0, memory_mb=256)
    with pytest.raises(SystemExit, match="budget 5.0 s"):
        winnability.run(out, seed=17, count=2, budget_s=6.0, memory_mb=256)


def test_the_summary_counts_every_verdict_with_its_interval():
    rows = [{"draw": 1, "budget_s": 60.0, "verdict": verdict, "via": "search"}
            for verdict in ["winnable"] * 7 + ["unwinnable"] * 2 + ["unknown"]]
    rows.append({"draw": 3, "budget_s": 60.0, "verdict": "unwinnable", "via": "draw-1"})
    table = winnability.summary(rows).splitlines()
    assert table[0].startswith("draw 1: N=10 (0 free from the other mode), budget 60 s CPU")
    assert "winnable 70.00% [39.68%, 89.22%]" in table[0]
    assert "unresolved 10.00%" in table[0]
    assert table[1].startswith("draw 3: N=1 (1 free from the other mode)")


def test_the_published_results_file_is_one_experiment():
    results = winnability.load(winnability.DEFAULT_OUT)
    assert results, "bench/data/winnability/seed17.jsonl is missing"
    winnability.check_same_experiment(results, 17, 60.0, 2048)
    keys = [(r["deal"], r["draw"]) for r in results]
    assert len(keys) == len(set(keys)), "a (deal, draw) pair is classified twice"


@pytest.mark.parametrize("document", ["docs/FAQ.md", "README.md"])
def test_the_docs_publish_the_table_of_the_results_file(document):
    text = (Path(__file__).resolve().parents[2] / document).read_text()
    rows = winnability.markdown_rows(winnability.published(winnability.DEFAULT_OUT))
    assert len(rows) == 2  # both draw modes
    for row in rows:
        assert row in text, f"{document} does not have the row `{row}` (python bench/winnability --markdown)"


def test_unresolved_deals_are_searched_again_into_a_file_of_their_own(tmp_path):
    out = tmp_path / "run.jsonl"
    winnability.run(out, seed=17, count=2, budget_s=5.0, memory_mb=256)
    results = winnability.load(out)
    first = [r for r in results if r["deal"] == results[0]["deal"]]
    assert [(r["draw"], r["via"], r["verdict"]) for r in first] == [(1, "search", "winnable"),
                                                                      (3, "search", "winnable")]
    # As if both of the first deal's searches had run out of budget.
    for result in first:
        result |= {"verdict": "unknown", "reason": "time"}
    _rows(out, results)
    message = winnability.second_pass(out, 5.0, 256, 1)
    assert message == ("2 searches of an unresolved deal and mode at 5 s, 256 MiB so far: 2 winnable, "
                       "0 proven lost, 0 still unresolved; unresolved now 0 in draw 1, 0 in draw 3")
    again = winnability.load(out.with_suffix(".unresolved.jsonl"))
    assert [(r["deal"], r["draw"], r["before"], r["budget_s"]) for r in again] == [
        (first[0]["deal"], 1, "unknown", 5.0), (first[0]["deal"], 3, "unknown", 5.0)]
    counted = {(r["deal"], r["draw"]): r for r in winnability.published(out)}
    assert counted[first[0]["deal"], 1]["second_pass"] == {"budget_s": 5.0, "memory_mb": 256}


def _rows(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


_BASE = {"seed": 17, "budget_s": 60.0, "memory_mb": 2048, "via": "search"}
_UNKNOWN, _WON = {"verdict": "unknown", "reason": "time"}, {"verdict": "winnable", "reason": None}


def _unresolved_run(path: Path, deals: int) -> None:
    """Every mode of ``deals`` deals unresolved; draw 3 first in the file, as a run may finish them."""
    _rows(path, [{**_BASE, **_UNKNOWN, "index": deal, "deal": deal, "draw": draw,
                  "code": str(GameCode(draw=draw, deal=deal))} for deal in range(deals) for draw in (3, 1)])


def test_a_second_pass_resumes_at_its_budgets_and_skips_draw_3_after_a_draw_1_loss(tmp_path, monkeypatch):
    out = tmp_path / "run.jsonl"
    _unresolved_run(out, 2)
    searched = []

    def classify(deal, draw, other, budget_s, memory_mb, variant="reflechi"):  # deal 0 is lost, deal 1 stays unresolved
        searched.append((deal, draw, budget_s))
        verdict = "unwinnable" if deal == 0 else "unknown"
        return {"verdict": verdict, "via": "search", "ms": 1.0, "nodes": 1, "reason": None}

    monkeypatch.setattr(winnability, "classify", classify)  # the pool's forked workers inherit it
    # The run's own budgets, before they were recorded: those rows count as searched at them.
    _rows(out.with_suffix(".unresolved.jsonl"), [{"deal": 1, "draw": 1, "before": "unknown", "verdict": "unknown"}])
    winnability.second_pass(out, 60.0, 2048, 1)
    rows = winnability.load(out.with_suffix(".unresolved.jsonl"))
    assert [(r["deal"], r["draw"], r["budget_s"]) for r in rows[1:]] == [(0, 1, 60.0), (1, 3, 60.0)]
    winnability.second_pass(out, 60.0, 2048, 1)  # resumed: nothing more at these budgets
    assert len(winnability.load(out.with_suffix(".unresolved.jsonl"))) == 3
    winnability.second_pass(out, 240.0, 2048, 1)  # longer: what is still unresolved, draw 1 first
    assert [(r["deal"], r["draw"], r["budget_s"]) for r in winnability.load(out.with_suffix(".unresolved.jsonl"))[3:]
            ] == [(1, 1, 240.0), (1, 3, 240.0)]
    verdicts = {(r["deal"], r["draw"]): (r["verdict"], r["via"]) for r in winnability.published(out)}
    assert verdicts == {(0, 1): ("unwinnable", "search"), (0, 3): ("unwinnable", "draw-1"),
                        (1, 1): ("unknown", "search"), (1, 3): ("unknown", "search")}


def test_a_second_pass_decides_what_the_run_left_and_the_other_mode_follows(tmp_path):
    out = tmp_path / "run.jsonl"
    lost = {**_BASE, "verdict": "unwinnable", "reason": None}
    _rows(out, [{**_BASE, **_UNKNOWN, "deal": 1, "draw": 1}, {**_BASE, **_UNKNOWN, "deal": 1, "draw": 3},
                {**_BASE, **_UNKNOWN, "deal": 2, "draw": 1}, {**_BASE, **_WON, "deal": 2, "draw": 3},
                {**_BASE, **_UNKNOWN, "deal": 3, "draw": 1}, {**_BASE, **_UNKNOWN, "deal": 3, "draw": 3},
                {**lost, "deal": 4, "draw": 1}, {**lost, "deal": 4, "draw": 3, "via": "draw-1"}])
    # Deal 4's proof of a loss is not repeated by the search as it is now; the second pass wins its draw 3.
    _rows(out.with_suffix(".recheck.jsonl"), [{"deal": 4, "draw": 1, "before": "unwinnable", **_UNKNOWN}])
    # Deal 1's draw 1 proved lost by the second pass: its draw 3 too. Deal 3's stays unresolved.
    second = {"before": "unknown", "budget_s": 240.0, "memory_mb": 6144}
    _rows(out.with_suffix(".unresolved.jsonl"), [
        {**second, "deal": 1, "draw": 1, "verdict": "unwinnable"}, {**second, "deal": 3, "draw": 1, **_UNKNOWN},
        {**second, "deal": 4, "draw": 3, "verdict": "winnable"}])
    counted = {(r["deal"], r["draw"]): (r["verdict"], r["via"]) for r in winnability.published(out)}
    assert counted == {(1, 1): ("unwinnable", "search"), (1, 3): ("unwinnable", "draw-1"),
                       # a draw-3 win is the draw-1 win: the run searched draw 1 first and missed it
                       (2, 1): ("winnable", "draw-3"), (2, 3): ("winnable", "search"),
                       (3, 1): ("unknown", "search"), (3, 3): ("unknown", "search"),
                       (4, 1): ("winnable", "draw-3"), (4, 3): ("winnable", "search")}
    draw1, draw3 = winnability.summary(winnability.published(out)).splitlines()
    assert draw1.startswith("draw 1: N=4 (2 free from the other mode), budget 60 s CPU, "
                            "1 decided in a second pass (240 s, 6144 MiB) |")
    assert draw3.startswith("draw 3: N=4 (1 free from the other mode), budget 60 s CPU, "
                            "1 decided in a second pass (240 s, 6144 MiB) |")


def test_a_stopped_run_missing_a_mode_is_counted_and_contradicting_modes_are_refused(tmp_path):
    out = tmp_path / "run.jsonl"
    _rows(out, [{**_BASE, **_UNKNOWN, "deal": 1, "draw": 1, "code": "TF1-D1N-AAAAAAB"}])
    assert [r["verdict"] for r in winnability.published(out)] == ["unknown"]
    _rows(out, [{**_BASE, "verdict": "unwinnable", "reason": None, "deal": 1, "draw": 1, "code": "TF1-D1N-AAAAAAB"},
                {**_BASE, **_WON, "deal": 1, "draw": 3, "code": "TF1-D3N-AAAAAAB"}])
    with pytest.raises(ValueError, match="TF1-D1N-AAAAAAB: proved lost in draw 1 but won in draw 3"):
        winnability.published(out)


def test_a_proof_the_search_no_longer_repeats_is_counted_unresolved_with_the_loss_taken_from_it(tmp_path):
    out = tmp_path / "run.jsonl"
    lost = {"seed": 17, "budget_s": 60.0, "memory_mb": 2048, "verdict": "unwinnable", "reason": None}
    rows = [{**lost, "deal": 1, "draw": 1, "via": "search"}, {**lost, "deal": 1, "draw": 3, "via": "draw-1"},
            {**lost, "deal": 2, "draw": 1, "via": "search"}, {**lost, "deal": 2, "draw": 3, "via": "draw-1"}]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    again = [{"deal": 1, "draw": 1, "before": "unwinnable", "verdict": "unknown", "reason": "time"},
             {"deal": 2, "draw": 1, "before": "unwinnable", "verdict": "unwinnable", "reason": None}]
    out.with_suffix(".recheck.jsonl").write_text("".join(json.dumps(r) + "\n" for r in again))
    verdicts = {(r["deal"], r["draw"]): r["verdict"] for r in winnability.published(out)}
    assert verdicts == {(1, 1): "unknown", (1, 3): "unknown", (2, 1): "unwinnable", (2, 3): "unwinnable"}


KLONDIKE_OUT = winnability.DEFAULT_OUT.with_name(winnability.VARIANT_OUT.format("klondike"))


def test_the_klondike_results_file_is_one_experiment_that_ours_never_contradicts():
    """The variant only takes moves away from ours: a deal it wins, ours wins, and a deal ours loses, it loses."""
    results = winnability.load(KLONDIKE_OUT)
    assert results, "bench/data/winnability/seed17.klondike.jsonl is missing"
    winnability.check_same_experiment(results, 17, 60.0, 2048, "klondike")
    keys = [(r["deal"], r["draw"]) for r in results]
    assert len(keys) == len(set(keys)), "a (deal, draw) pair is classified twice"
    ours = {(r["deal"], r["draw"]): r["verdict"] for r in winnability.published(winnability.DEFAULT_OUT)}
    for row in winnability.published(KLONDIKE_OUT):
        pair = (row["verdict"], ours[row["deal"], row["draw"]])
        assert pair not in (("winnable", "unwinnable"), ("unknown", "unwinnable")), row["code"]


@pytest.mark.parametrize("document", ["docs/FAQ.md", "README.md"])
def test_the_docs_publish_the_klondike_table_beside_ours(document):
    text = (Path(__file__).resolve().parents[2] / document).read_text()
    variant = winnability.published(KLONDIKE_OUT)
    rows = winnability.markdown_rows(variant) + winnability.side_by_side(winnability.published(winnability.DEFAULT_OUT),
                                                                         variant)
    assert len(rows) == 2 + 4
    for row in rows:
        assert row in text, f"{document} lacks `{row}` (python bench/winnability --variant klondike --markdown)"
    assert "TF1-D3N-SFEKBMA" in text and "`TS 9D`" in text and "`t2>t7`" in text
