"""The cost of concept recall (``memoir-tui[semantic]``) beside the lexical index.

    .venv/bin/python bench/recall/bench_semantic.py --sizes 10000 [--json out.json]

For each size, on a generated corpus (``gen_corpus.py``), in a scratch HOME:

1. the lexical build (``index --rebuild``, a fresh process), then the concept build
   (``Recall.build_concepts``: every chunk embedded), then a second concept build (nothing
   changed: every chunk reused) — seconds, and the ratio to the lexical build;
2. the vector files' size (the fingerprint table and the float32 matrix) beside the index's;
3. fresh CLI queries whose lexical evidence is weak (the fallback runs: the model is
   loaded and the query embedded) against the same queries with no vectors (lexical only),
   median ms of each and the ratio; warm in-process queries the same way. ``fallback_ran``
   counts the warm queries whose answer holds a concept match.

The model cannot be fetched on this machine (no network but package registries), so the
run uses a **timing stand-in** with the real model's shape: a WordPiece tokenizer and a
float32 table of ``VOCAB`` × 256 (potion-base-8M is ≈ 29.5k × 256), random vectors. It
measures cost, never quality.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import gen_corpus  # noqa: E402

VOCAB = 29_500
DIM = 256
WEAK = (  # one or two words of each are in the corpus, the rest not: the fallback runs
    "sluggish storefront phones cache",
    "woken nightly pager oncall deploy",
    "hosting bill jumped spend database",
    "knobs toggling flags config",
    "outage login screen blank auth",
)


def stand_in_model(folder: Path, corpus_words: list[str]) -> None:
    """A WordPiece tokenizer over the corpus's words plus pieces, random 256-d vectors."""
    import numpy as np
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab: dict[str, int] = {"[UNK]": 0}
    # the questions' words are English words the real vocabulary holds whole, so the
    # fallback's gate (``semantic.KNOWN_SHARE``) lets them through as it would there
    for q in WEAK:
        for w in q.split():
            vocab.setdefault(w, len(vocab))
    for w in corpus_words:
        if len(vocab) >= VOCAB // 2:
            break
        vocab.setdefault(w, len(vocab))
    letters = "abcdefghijklmnopqrstuvwxyz"
    for a in letters:
        for b in letters:
            for piece in (f"##{a}{b}", f"{a}{b}"):
                if len(vocab) < VOCAB:
                    vocab.setdefault(piece, len(vocab))
    for c in letters:
        vocab.setdefault(f"##{c}", len(vocab))
        vocab.setdefault(c, len(vocab))
    # filled up to the real model's vocabulary size with three-letter pieces
    for a in letters:
        for b in letters:
            for c in letters:
                if len(vocab) < VOCAB:
                    vocab.setdefault(f"##{a}{b}{c}", len(vocab))
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    rng = np.random.default_rng(7)
    table = rng.standard_normal((len(vocab), DIM)).astype(np.float32)
    save_file({"embeddings": table}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"normalize": True}))


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    home = root / "home"
    env.update(
        HOME=str(home),
        MEMOIR_HOME=str(home / ".config" / "memoir"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(root / "cache"),
    )
    return env


def _cli(env: dict[str, str], root: Path, *args: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args], env=env, cwd=root, capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    return (time.perf_counter() - start) * 1000, proc.stdout


def bench(root: Path, size: int, runs: int) -> dict:
    from memoir_tui.core.recall import Recall, semantic

    out: dict = {"entries": size, "load_avg_start": [round(x, 2) for x in os.getloadavg()]}
    gen_corpus.generate(root, size)
    env = _env(root)
    wall, text = _cli(env, root, "index", "--rebuild", "--json")
    report = json.loads(text)
    out["lexical_build_s"] = round(wall / 1000, 2)
    index = Path(report["path"])
    cache = index.parent
    words: dict[str, int] = {}
    for path in list((root / "home" / ".config" / "memoir" / "memory").glob("*.md"))[:3000]:
        for w in path.read_text(errors="replace").lower().split():
            w = "".join(c for c in w if c.isalpha())
            if w:
                words[w] = words.get(w, 0) + 1
    stand_in_model(semantic.model_dir(cache), sorted(words, key=lambda w: -words[w]))
    table = semantic.StaticModel.load(semantic.model_dir(cache)).vectors
    out["stand_in_shape"] = list(table.shape)

    old_env = dict(os.environ)
    os.environ.update(env)
    try:
        recall = Recall(None)
        start = time.perf_counter()
        embedded, _reused = recall.build_concepts(fetch=False)
        out["concept_build_s"] = round(time.perf_counter() - start, 2)
        out["concept_build_ratio"] = round(out["concept_build_s"] / out["lexical_build_s"], 2)
        out["chunks_embedded"] = embedded
        start = time.perf_counter()
        again = recall.build_concepts(fetch=False)
        out["concept_rebuild_unchanged_s"] = round(time.perf_counter() - start, 2)
        out["chunks_reused"] = again[1] if again else 0
        vec = semantic.vectors_path(index)
        out["index_mb"] = round(index.stat().st_size / 1e6, 1)
        matrix = semantic.matrix_path(index)  # format 2: the fingerprint table + the matrix
        out["vectors_table_mb"] = round(vec.stat().st_size / 1e6, 1)
        out["vectors_matrix_mb"] = round(matrix.stat().st_size / 1e6, 1)
        out["vectors_mb"] = round(out["vectors_table_mb"] + out["vectors_matrix_mb"], 1)
        out["vectors_ratio"] = round(out["vectors_mb"] / out["index_mb"], 2)
        # warm: the same weak queries with and without the vectors
        with_vec, without = [], []
        ran = 0
        for i in range(runs):
            q = WEAK[i % len(WEAK)]
            start = time.perf_counter()
            hits = recall.search(q, all_projects=True)
            with_vec.append((time.perf_counter() - start) * 1000)
            ran += recall.weak and any("concept" in h.why for h in hits)
        out["warm_weak_with_concepts_ms"] = round(statistics.median(with_vec), 1)
        out["fallback_ran"] = f"{ran}/{runs}"
        recall.close()
        fresh_with = [
            _cli(env, root, "recall", *WEAK[i % len(WEAK)].split(), "--all-projects")[0]
            for i in range(runs)
        ]
        hidden = vec.with_name(vec.name + ".off")
        vec.rename(hidden)
        recall = Recall(None)
        for i in range(runs):
            q = WEAK[i % len(WEAK)]
            start = time.perf_counter()
            recall.search(q, all_projects=True)
            without.append((time.perf_counter() - start) * 1000)
        recall.close()
        out["warm_weak_lexical_only_ms"] = round(statistics.median(without), 1)
        out["warm_ratio"] = round(
            out["warm_weak_with_concepts_ms"] / out["warm_weak_lexical_only_ms"], 2
        )
        fresh_without = [
            _cli(env, root, "recall", *WEAK[i % len(WEAK)].split(), "--all-projects")[0]
            for i in range(runs)
        ]
        hidden.rename(vec)
        out["fresh_weak_with_concepts_ms"] = round(statistics.median(fresh_with), 1)
        out["fresh_weak_lexical_only_ms"] = round(statistics.median(fresh_without), 1)
        out["fresh_ratio"] = round(
            out["fresh_weak_with_concepts_ms"] / out["fresh_weak_lexical_only_ms"], 2
        )
    finally:
        os.environ.clear()
        os.environ.update(old_env)
    out["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    print(json.dumps({"cpus": os.cpu_count(), "python": sys.version.split()[0]}), flush=True)
    for size in (int(s) for s in args.sizes.split(",")):
        root = Path(tempfile.mkdtemp(prefix=f"memoir-semantic-bench-{size}-"))
        try:
            res = bench(root, size, args.runs)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        results.append(res)
        print(json.dumps(res), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
