"""Retrieval quality on the evaluation set: the ranker against plain BM25.

    .venv/bin/python bench/recall/evaluate.py [--verbose] [--json]

Builds ``evalset`` in a temporary directory, indexes it with ``Recall`` (every
project in scope; a query of ``evalset.HERE`` is asked from inside its project, in the
default scope) and reports, over all graded queries:

- MRR: 1 / rank of the first grade-2 (answering) document, 0 if not in the top 10;
- recall@5: share of the query's graded documents (grade ≥ 1) in the top 5;
- nDCG@10 with gains 2 and 1.

The baseline is SQLite FTS5's ``bm25()`` over each file's whole text (frontmatter
included, so aliases are findable), unicode61 tokens without folding, stop words
removed, words OR-ed — what one gets from FTS5 out of the box.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import evalset

from memoir_tui.core.recall import Recall, semantic
from memoir_tui.core.recall.rank import bm25_baseline, build_plain_table
from memoir_tui.core.recall.text import parse_query

K = 10


def index_known(conn: sqlite3.Connection, query: str) -> tuple[int, int]:
    """(query words the index knows — a word of its notes or a project's name —, words)."""
    terms = parse_query(query)
    known = sum(
        1
        for t in terms
        if any(
            conn.execute(f"SELECT 1 FROM {table} WHERE term = ?", (t.stem,)).fetchone()
            for table in ("vocab", "pvocab")
        )
    )
    return known, len(terms)


def _metrics(ranked: list[str], grades: dict[str, int]) -> tuple[float, float, float, float, float]:
    """(RR, recall@5, nDCG@10, top-1, host-loaded index files in the top 5)."""
    top1 = 1.0 if ranked and grades.get(ranked[0], 0) >= 2 else 0.0
    noise = float(sum(1 for p in ranked[:5] if Path(p).name == "MEMORY.md" and p not in grades))
    rr = 0.0
    for i, path in enumerate(ranked[:K], start=1):
        if grades.get(path, 0) >= 2:
            rr = 1.0 / i
            break
    relevant = [p for p, g in grades.items() if g >= 1]
    recall5 = len([p for p in ranked[:5] if p in grades]) / max(len(relevant), 1)
    dcg = sum(
        (2 ** grades.get(p, 0) - 1) / math.log2(i + 1) for i, p in enumerate(ranked[:K], start=1)
    )
    ideal = sorted(grades.values(), reverse=True)[:K]
    idcg = sum((2**g - 1) / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
    return rr, recall5, dcg / idcg if idcg else 0.0, top1, noise


def _summary(rows: list[tuple[str, float, float, float, float, float]]) -> dict[str, float]:
    n = max(len(rows), 1)
    return {
        "queries": len(rows),
        "mrr": sum(r[1] for r in rows) / n,
        "recall@5": sum(r[2] for r in rows) / n,
        "ndcg@10": sum(r[3] for r in rows) / n,
        "top1": sum(r[4] for r in rows) / n,
        "index@5": sum(1 for r in rows if r[5]),
    }


def evaluate(
    root: Path, *, verbose: bool = False, distractors: int | None = None
) -> dict[str, dict[str, float]]:
    corpus = (
        evalset.build(root)
        if distractors is None
        else evalset.build(root, n_distractors=distractors)
    )
    env = {"HOME": str(corpus.home), "XDG_CONFIG_HOME": str(corpus.home / ".config")}
    recall = Recall(corpus.store, home=corpus.home, env=env, cache_dir=root / "cache", cwd=root)
    recall.refresh(full=True)
    conn = recall.index.conn
    paths = [r[0] for r in conn.execute("SELECT path FROM files WHERE source != 'session'")]
    texts = [Path(p).read_text(encoding="utf-8") for p in paths]
    # the session's documents (history summaries …) are documents of their own for BM25 too
    for name, text in conn.execute("SELECT name, text FROM docs WHERE kind = 'session'"):
        paths.append(evalset.session_key(name))
        texts.append(text)
    scratch = sqlite3.connect(":memory:")
    build_plain_table(scratch, list(enumerate(texts)))
    results: dict[str, dict[str, float]] = {}
    per_query: dict[str, list[tuple[str, float, float, float, float, float]]] = {
        "ranker": [],
        "bm25": [],
        # the concept fallback at its worst: on every query whose lexical evidence is weak
        # (the queries it runs for), the model's vocabulary holds none of its words (so the
        # gate, ``semantic.KNOWN_SHARE``, counts only the index's words and, closed, the
        # answer is empty) and each concept match is wrong and takes the place the
        # interleaving gives it (concept first) — a lower bound for recall with [semantic]
        "concept-worst": [],
    }
    # a query of ``evalset.HERE`` is asked from inside its project, in the default scope
    inside = {
        name: Recall(corpus.store, home=corpus.home, env=env, cache_dir=root / "cache", cwd=path)
        for name, path in corpus.projects.items()
    }
    for query, grades in sorted(corpus.judgements.items()):
        here = evalset.HERE.get(query)
        asker = inside[here] if here else recall
        found = asker.search(query, limit=K, all_projects=not here)
        ranked = [evalset.session_key(h.name) if h.kind == "session" else h.path for h in found]
        worst = ranked
        if asker.weak:
            known, n = index_known(conn, query)
            worst = (
                [p for i, lexical in enumerate(ranked) for p in (f"wrong:{i}", lexical)][:K]
                if known >= semantic.KNOWN_SHARE * n
                else []
            )
        base = [paths[i] for i in bm25_baseline(scratch, query, limit=K)]
        per_query["ranker"].append((query, *_metrics(ranked, grades)))
        per_query["bm25"].append((query, *_metrics(base, grades)))
        per_query["concept-worst"].append((query, *_metrics(worst, grades)))
        if verbose:
            r_rr = per_query["ranker"][-1][1]
            b_rr = per_query["bm25"][-1][1]
            if r_rr < 1 or b_rr > r_rr:
                best = [p for p, g in grades.items() if g == 2]
                print(f"{query!r}: ranker RR {r_rr:.2f}, bm25 RR {b_rr:.2f}; want {best}")
                for h in ranked[:3]:
                    print(f"    ranker: {h}")
    for name, rows in per_query.items():
        results[name] = _summary(rows)
        for cls in sorted(set(evalset.CLASSES.values())):
            picked = [r for r in rows if evalset.CLASSES.get(r[0]) == cls]
            if picked:
                results[f"{name}/{cls}"] = _summary(picked)
        # the lexical goals are judged without the concept class (no shared word)
        results[f"{name}/lexical"] = _summary(
            [r for r in rows if evalset.CLASSES.get(r[0]) != "concept"]
        )
        general = [r for r in rows if r[0] not in evalset.CLASSES]
        results[f"{name}/general"] = _summary(general)
    results["corpus"] = {"files": corpus.files, "queries": len(corpus.judgements)}
    recall.close()
    for r in inside.values():
        r.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="show queries the ranker missed")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--distractors",
        type=int,
        help="generated notes beside the judged ones (default: the set's)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memoir-recall-eval-") as tmp:
        results = evaluate(Path(tmp), verbose=args.verbose, distractors=args.distractors)
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    corpus = results["corpus"]
    print(f"corpus: {corpus['files']} files, {corpus['queries']} graded queries")
    print("| ranker | class | queries | MRR | recall@5 | nDCG@10 | top-1 | MEMORY.md in top 5 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    classes = ["all", "lexical", "general", *sorted(set(evalset.CLASSES.values()))]
    for cls in classes:
        for name in ("ranker", "concept-worst", "bm25"):
            r = results[name if cls == "all" else f"{name}/{cls}"]
            print(
                f"| {name} | {cls} | {r['queries']} | {r['mrr']:.3f} | {r['recall@5']:.3f} "
                f"| {r['ndcg@10']:.3f} | {r['top1']:.3f} | {r['index@5']} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
