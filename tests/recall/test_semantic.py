"""Concept recall (issue 27): the real loading code on a tiny model the test builds.

The model has the layout its authors publish (tokenizer.json, model.safetensors,
config.json); its vectors put words of one concept on one axis, so a question in
other words lands on the note that answers it.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import typing
import urllib.error
from pathlib import Path

import pytest

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.recall import semantic
from tests.world import World

from .conftest import entry, write

REPO = Path(__file__).resolve().parents[2]

CONCEPTS = (
    ("pager", "pagerduty", "rotation", "rotates", "woken", "night", "oncall", "breaks"),
    ("invoice", "bill", "spend", "cost", "hosting", "aws", "jump", "spike"),
    ("deploys", "tuesdays", "release", "ship"),
    ("production", "prod"),
)


def make_model(folder: Path, *, pieces: bool = False) -> None:
    """A model2vec-format static model: one axis per concept, the unknown token zero.

    ``pieces``: a WordPiece tokenizer, as the real model has, that spells any other word
    in letters (``x ##q ##z``), each letter a vector of its own axis, so every word, random
    letters too, embeds to something and has some similarity with every note."""
    import numpy as np
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    dims = len(CONCEPTS) + 1
    vocab = {"[UNK]": 0}
    rows = [np.zeros(dims, dtype=np.float32)]
    for axis, words in enumerate(CONCEPTS):
        for word in words:
            vocab[word] = len(vocab)
            vec = np.zeros(dims, dtype=np.float32)
            vec[axis] = 1.0
            rows.append(vec)
    if pieces:
        for letter in "abcdefghijklmnopqrstuvwxyz":
            for piece in (letter, f"##{letter}"):
                vocab[piece] = len(vocab)
                vec = np.zeros(dims, dtype=np.float32)
                vec[-1] = 1.0
                rows.append(vec)
    tok = Tokenizer(
        models.WordPiece(vocab, unk_token="[UNK]")
        if pieces
        else models.WordLevel(vocab, unk_token="[UNK]")
    )
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    save_file({"embeddings": np.stack(rows)}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"normalize": True}))


@pytest.fixture
def concepts(world: World):
    mem = world.store_dir / "memory"
    write(
        mem / "fact_pager.md",
        entry("fact", "Pager rotation", "PagerDuty rotates weekly; the secondary covers.\n"),
    )
    write(
        mem / "lesson_bill.md",
        entry("lesson", "Cloud bill spike", "NAT traffic doubled the AWS invoice in March.\n"),
    )
    write(
        mem / "fact_deploys.md",
        entry("fact", "Release days", "Production deploys happen on Tuesdays.\n"),
    )
    make_model(semantic.model_dir(world.cache))  # the cache the Recall of world.recall() uses
    return world


def test_a_question_in_other_words_finds_its_note_only_through_the_fallback(concepts: World):
    question = "who gets woken up at night when production breaks"
    with concepts.recall() as recall:
        lexical = [h.name for h in recall.search(question, all_projects=True)]
        assert lexical == ["Release days"]  # "production" alone: weak evidence
        assert recall.weak
        strong = [h.name for h in recall.search("deploys tuesdays", all_projects=True)]
        assert recall.build_concepts(fetch=False) == (len(recall.index.conn.execute(
            "SELECT 1 FROM docs").fetchall()), 0)  # fmt: skip
        hits = recall.search(question, all_projects=True)
        assert hits[0].name == "Pager rotation" and hits[0].why == {"concept": []}
        assert "Release days" in [h.name for h in hits]  # the lexical match stays
        # strong lexical evidence: exactly as without concept search
        assert [h.name for h in recall.search("deploys tuesdays", all_projects=True)] == strong
        assert not recall.weak
        # no word any note shares: no fallback, nothing found
        assert recall.search("xqzvbrt wkpplo", all_projects=True) == []
        # the filters hold for concept matches too
        assert all(
            h.type == "fact" for h in recall.search(question, all_projects=True, types=["fact"])
        )
        assert "Cloud bill spike" not in [
            h.name for h in recall.search(question, all_projects=True, types=["fact"])
        ]


def test_random_letters_find_nothing_through_the_fallback(concepts: World):
    """Issue 27: no cosine floor separates random letters from a concept question (with a
    WordPiece model every string embeds to something). A query whose words are mostly
    unknown to the model's vocabulary and to the index gets no fallback and no answer."""
    import random

    make_model(semantic.model_dir(concepts.cache), pieces=True)
    rng = random.Random(27)
    letters = "abcdefghijklmnopqrstuvwxyz"

    def gibberish() -> str:
        words = ["".join(rng.choice(letters) for _ in range(rng.randint(5, 9))) for _ in "abc"]
        return " ".join([*words, "rota"])  # "rota": a prefix of a word, a weak lexical match

    with concepts.recall() as recall:
        recall.refresh(full=True)
        assert recall.build_concepts(fetch=False)[0] >= 3
        queries = [gibberish() for _ in range(20)]
        for query in queries:
            assert recall.search(query, all_projects=True) == [], query
        # a question in other words still falls back, with this model too
        hits = recall.search("who gets woken up at night when production breaks", all_projects=True)
        assert recall.weak and hits[0].name == "Pager rotation"
        # and a weak lexical match with mostly known words is still shown
        assert recall.search("deploys flurbix", all_projects=True)


def test_only_changed_chunks_are_embedded_and_the_file_is_private(concepts: World):
    with concepts.recall() as recall:
        recall.refresh(full=True)
        embedded, reused = recall.build_concepts(fetch=False)
        assert embedded >= 3 and reused == 0
        matrix = semantic.matrix_path(recall.index.path)
        first = matrix.stat()
        assert recall.build_concepts(fetch=False) == (0, embedded)
        again = matrix.stat()  # nothing changed: the matrix is not rewritten
        assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
        note = concepts.store_dir / "memory" / "fact_pager.md"
        note.write_text(entry("fact", "Pager rotation", "Rotates every Monday now.\n"))
        recall.refresh(full=True)
        assert recall.build_concepts(fetch=False) == (1, embedded - 1)
        vectors = semantic.vectors_path(recall.index.path)
        assert stat.S_IMODE(vectors.stat().st_mode) == 0o600
        # a cache: deleted, it is rebuilt from the index
        vectors.unlink()
        assert recall.build_concepts(fetch=False) == (embedded, 0)


def test_offline_the_model_fetch_fails_in_one_sentence(tmp_path: Path):
    def offline(url, timeout):
        assert url.startswith("https://huggingface.co/minishlab/potion-base-8M/resolve/")
        raise urllib.error.URLError("Temporary failure in name resolution")

    folder = tmp_path / "models" / "m"
    with pytest.raises(MemoirError) as err:
        semantic.fetch_model(folder, opener=offline)
    text = str(err.value)
    assert "could not be fetched" in text and str(folder) in text and "\n" not in text
    assert not list(folder.glob("*.part"))


def test_the_fetch_writes_each_file_once_with_progress(tmp_path: Path):
    import io

    class Response(io.BytesIO):
        headers: typing.ClassVar[dict[str, str]] = {"Content-Length": "5"}

    calls: list[str] = []

    def opener(url, timeout):
        calls.append(url.rsplit("/", 1)[-1])
        return Response(b"hello")

    lines: list[str] = []
    folder = tmp_path / "m"
    semantic.fetch_model(folder, progress=lines.append, opener=opener)
    assert calls == list(semantic.MODEL_FILES)
    assert all((folder / f).read_bytes() == b"hello" for f in semantic.MODEL_FILES)
    assert any("model.safetensors" in line and "MB" in line for line in lines)
    semantic.fetch_model(folder, opener=opener)  # present: nothing fetched again
    assert len(calls) == len(semantic.MODEL_FILES)


def test_without_the_extra_recall_is_unchanged_and_says_once_that_it_exists(world: World):
    env = world.cli_env()
    env["PYTHONPATH"] = str(REPO)
    # the extra's modules hidden: a process that cannot import them
    blocker = world.root / "noextra"
    for name in ("numpy", "tokenizers", "safetensors"):
        write(blocker / name / "__init__.py", "raise ImportError('not installed')\n")
    code = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda n, *a: None if n in "
        "('numpy', 'tokenizers', 'safetensors') else real(n, *a)\n"
        "from memoir_tui.__main__ import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )

    def run(*words: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", code, "recall", *words, "--json", "--all-projects"],
            env=env, cwd=world.project, capture_output=True, text=True, check=True,
        )  # fmt: skip

    first = run("who", "decided", "postgres", "tomorrow", "lunch", "weather")
    assert "concept search" in first.stderr and "memoir-tui[semantic]" in first.stderr
    second = run("who", "decided", "postgres", "tomorrow", "lunch", "weather")
    assert "concept search" not in second.stderr  # once
    assert json.loads(first.stdout) == json.loads(second.stdout)
    assert json.loads(first.stdout)[0]["name"] == "Postgres is the primary database"
    assert os.path.exists(world.cache / "memoir-tui" / semantic.HINT_MARKER)


def test_index_embeds_with_the_model_in_the_cache_and_recall_then_answers(concepts: World):
    """The CLI: ``index`` embeds (model present, no network), a fresh ``recall`` falls back."""
    env = concepts.cli_env()
    env["PYTHONPATH"] = str(REPO)
    make_model(semantic.model_dir(concepts.cache / "memoir-tui"))  # the CLI's cache

    def cli(*args: str) -> str:
        return subprocess.run(
            [sys.executable, "-m", "memoir_tui", *args],
            env=env, cwd=concepts.project, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip

    report = json.loads(cli("index", "--json"))
    assert report["concepts"]["embedded"] >= 3 and report["concepts"]["reused"] == 0
    assert json.loads(cli("index", "--json"))["concepts"]["embedded"] == 0  # nothing changed
    hits = json.loads(
        cli("recall", "who", "gets", "woken", "when", "production", "breaks", "--json")
    )
    assert hits[0]["name"] == "Pager rotation" and hits[0]["why"] == {"concept": []}


def test_the_mcp_server_embeds_in_its_background_build(
    concepts: World, monkeypatch: pytest.MonkeyPatch
):
    """The served process builds the lexical index, then the vectors, off the query path
    (its builder thread), with the model already in its cache and no network."""
    from memoir_tui.mcp import warm_recall as recall_tools

    for key, value in concepts.cli_env().items():
        monkeypatch.setenv(key, value)
    cache = concepts.cache / "memoir-tui"  # the server's cache (XDG_CACHE_HOME)
    make_model(semantic.model_dir(cache))
    warm = recall_tools.WarmRecall(concepts.store_dir, cwd=concepts.project)
    try:
        warm.start()
        builder = warm._builder
        assert builder is not None
        builder.join(timeout=120)  # a safety net: the thread ends once the vectors are built
        assert not builder.is_alive()
        recall = warm.get()
        assert semantic.vectors_path(recall.index.path).exists()
        hits = recall.search("who gets woken when production breaks", all_projects=True)
        assert hits[0].name == "Pager rotation" and hits[0].why == {"concept": []}
    finally:
        warm.close()


def test_an_old_format_vectors_file_is_rebuilt_never_misread(concepts: World):
    """Format 1 kept float16 blobs per chunk in the SQLite file. Such a file, even one whose
    fingerprints are exactly this model's, is never read as vectors: the fallback finds no
    concept match until a build, and the build re-embeds every chunk (reusing none)."""
    import sqlite3

    import numpy as np

    question = "who gets woken up at night when production breaks"
    with concepts.recall() as recall:
        recall.refresh(full=True)
        model = semantic.load_model(concepts.cache, fetch=False)
        assert model is not None
        chunks = list(semantic._chunks(recall.index.conn))
        path = semantic.vectors_path(recall.index.path)
        old = sqlite3.connect(path)
        old.executescript(
            "CREATE TABLE chunks(fp TEXT PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID;"
            "CREATE TABLE docs(key TEXT PRIMARY KEY, fp TEXT NOT NULL) WITHOUT ROWID;"
        )
        dims = model.vectors.shape[1]
        with old:
            for key, chunk in chunks:
                fp = semantic._fingerprint(model, chunk)
                # every old vector points at the "bill" axis: read, it would rank wrongly
                vec = np.zeros(dims, dtype=np.float16)
                vec[1] = 1.0
                old.execute("INSERT OR REPLACE INTO chunks VALUES (?, ?)", (fp, vec.tobytes()))
                old.execute("INSERT INTO docs VALUES (?, ?)", (key, fp))
        old.close()
        hits = recall.search(question, all_projects=True)
        assert not any("concept" in h.why for h in hits)  # not read as vectors
        assert recall.build_concepts(fetch=False) == (len(chunks), 0)  # none reused
        conn = sqlite3.connect(path)
        try:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == semantic.FORMAT
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            assert "chunks" not in tables
        finally:
            conn.close()
        hits = recall.search(question, all_projects=True)
        assert hits[0].name == "Pager rotation" and hits[0].why == {"concept": []}
        matrix = semantic.matrix_path(recall.index.path)
        assert stat.S_IMODE(matrix.stat().st_mode) == 0o600


def test_a_matrix_that_does_not_match_its_table_is_never_read(concepts: World):
    """A build killed between its two writes leaves a matrix whose token is not the
    table's: a query takes no concept match from it, the next build re-embeds everything."""
    question = "who gets woken up at night when production breaks"
    with concepts.recall() as recall:
        recall.refresh(full=True)
        embedded, _ = recall.build_concepts(fetch=False)
        matrix = semantic.matrix_path(recall.index.path)
        data = bytearray(matrix.read_bytes())
        data[24] ^= 0xFF  # a byte of the token in the header
        matrix.write_bytes(bytes(data))
        hits = recall.search(question, all_projects=True)
        assert not any("concept" in h.why for h in hits)
        assert recall.build_concepts(fetch=False) == (embedded, 0)
        truncated = matrix.read_bytes()[:-4]  # a short file: its size is not the header's
        matrix.write_bytes(truncated)
        assert not any("concept" in h.why for h in recall.search(question, all_projects=True))
        assert recall.build_concepts(fetch=False) == (embedded, 0)
        hits = recall.search(question, all_projects=True)
        assert hits[0].name == "Pager rotation" and hits[0].why == {"concept": []}


def test_the_model_table_is_mapped_and_other_dtypes_or_damage_still_handled(tmp_path: Path):
    """A float32 table (as model2vec publishes it) is mapped, not read whole; a float16 one
    is read and converted to the same vectors; a damaged file is one sentence."""
    import numpy as np
    from safetensors.numpy import load_file, save_file

    folder = tmp_path / "model"
    make_model(folder)
    mapped = semantic.StaticModel.load(folder)
    # a read-only view of the file's pages, not an array of its own
    assert not mapped.vectors.flags.writeable and not mapped.vectors.flags.owndata
    table = load_file(str(folder / "model.safetensors"))["embeddings"]
    assert np.array_equal(mapped.vectors, table)
    half = tmp_path / "half"
    make_model(half)
    save_file({"embeddings": table.astype(np.float16)}, str(half / "model.safetensors"))
    converted = semantic.StaticModel.load(half)
    assert converted.vectors.dtype == np.float32 and converted.vectors.flags.writeable
    assert np.array_equal(converted.vectors, table)  # its values are exact in float16
    question = ["pager rotation at night"]
    assert np.allclose(mapped.encode(question), converted.encode(question))
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(MemoirError, match=r"cannot be read.*delete the folder"):
        semantic.StaticModel.load(folder)
