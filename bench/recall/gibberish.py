"""The concept fallback's gate, read off the judged set: which weak queries it lets through.

    .venv/bin/python bench/recall/gibberish.py [--random 200]

For every judged query whose best lexical match covers less than ``WEAK_COVERAGE`` (the
queries the fallback is for), and for random-letter queries made to have a weak lexical
match (three random words and a four-letter prefix of a corpus word), prints the share of
the query's words the *index* knows (its vocabulary or a project's name). The fallback runs
when that share, counting also the words the concept model holds whole, is at least
``KNOWN_SHARE``. The real model's vocabulary cannot be fetched here, so the model's part is
not counted: for the judged queries this is a lower bound.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import evalset
from evaluate import index_known

from memoir_tui.core.recall import Recall, semantic


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memoir-recall-gibberish-") as tmp:
        root = Path(tmp)
        corpus = evalset.build(root)
        env = {"HOME": str(corpus.home), "XDG_CONFIG_HOME": str(corpus.home / ".config")}
        recall = Recall(corpus.store, home=corpus.home, env=env, cache_dir=root / "cache", cwd=root)
        recall.refresh(full=True)
        conn = recall.index.conn
        print("| judged query (weak lexical evidence) | class | words the index knows | gate |")
        print("|---|---|---:|---|")
        for query in sorted(corpus.judgements):
            recall.search(query, all_projects=True, record=False)
            if not recall.weak:
                continue
            known, n = index_known(conn, query)
            gate = "open" if known >= semantic.KNOWN_SHARE * n else "needs the model's vocabulary"
            cls = evalset.CLASSES.get(query, "general")
            print(f"| {query} | {cls} | {known}/{n} | {gate} |")
        rng = random.Random(27)
        letters = "abcdefghijklmnopqrstuvwxyz"
        stems = [r[0] for r in conn.execute("SELECT term FROM vocab WHERE length(term) >= 6")]
        weak = opened = 0
        for _ in range(args.random):
            words = [
                "".join(rng.choice(letters) for _ in range(rng.randint(4, 9))) for _ in range(3)
            ]
            query = " ".join([*words, rng.choice(stems)[:4]])
            recall.search(query, all_projects=True, record=False)
            if not recall.weak:
                continue
            weak += 1
            known, n = index_known(conn, query)
            opened += known >= semantic.KNOWN_SHARE * n
        print(
            f"\nrandom-letter queries: {args.random}; with a weak lexical match (the fallback "
            f"would run before): {weak}; gate open (index words only): {opened}"
        )
        recall.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
