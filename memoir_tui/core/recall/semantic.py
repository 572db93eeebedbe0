"""Concept recall: the optional extra ``memoir-tui[semantic]`` (numpy, tokenizers, safetensors).

A question in a person's own words often shares no word with the note that
answers it. With the extra installed, recall keeps a static embedding of every
document (model2vec's format: one vector per token, a document is the mean of
its tokens' vectors) beside the lexical index, and uses it **only as a fallback**:
when the best lexical match covers less than ``WEAK_COVERAGE`` of the query's
weight (the rule was read off the judged queries in ``bench/recall``, see the
bench README), the concept ranking is interleaved with the lexical one, concept
first (so the lexical best stays in the top two). A query no
document shares any word with gets no fallback; nor does one whose words are mostly
unknown both to the model's vocabulary (as whole words, not spelled in pieces) and to the
index (``KNOWN_SHARE``): a static model embeds any string, random letters too, and no
cosine floor tells them from a question, so random letters find nothing.

The model is what its authors publish (Minish Lab's ``potion-base-8M``: a
tokenizer, a safetensors table, a config), fetched once into the user cache when
the user turns concept search on (``memoir-tui index --concepts``, with
progress), or put there by hand; offline, one sentence says so and where the
files go. Nothing else ever reaches the network: ``index`` and the MCP server
embed only when the model is already there. Vectors are stored per chunk fingerprint (model +
text), so a rebuild embeds only the chunks that changed. Building happens off
the query path (``memoir-tui index``, the MCP server's background thread); a
query embeds only itself and maps the stored matrix (see below). The vector files
(``…sqlite3-vectors`` and ``…sqlite3-vectors.f32``, 0600) are a cache like the index:
deleting them loses nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sqlite3
import struct
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.base.filestamp import file_stamp
from memoir_tui.core.base.safeio import read_text_safely

MODEL_ID = "minishlab/potion-base-8M"  # its authors' own repository
MODEL_FILES = ("config.json", "tokenizer.json", "model.safetensors")
MODEL_URL = "https://huggingface.co/{model}/resolve/main/{file}"
MODEL_SIZE_HINT = "about 30 MB"
WEAK_COVERAGE = 0.4  # the best lexical match covers less than this share: fall back
KNOWN_SHARE = 0.5  # a fallback needs this share of the query's words known (``known_words``)
CHUNK_CHARS = 2000  # a document's chunk: name, description, the start of its body
CANDIDATES = 30  # concept matches fused with the lexical ones
BATCH = 256
HINT_MARKER = "concept-search-hint"
UNKNOWN = "[UNK]"

Progress = Callable[[str], None]


def available() -> bool:
    """The extra is installed (nothing is imported)."""
    return all(
        importlib.util.find_spec(m) is not None for m in ("numpy", "tokenizers", "safetensors")
    )


def model_dir(cache: Path) -> Path:
    return cache / "models" / MODEL_ID.replace("/", "--")


def vectors_path(index_path: Path) -> Path:
    return Path(f"{index_path}-vectors")


# --- the model ----------------------------------------------------------------------------


class StaticModel:
    """A model2vec-format static model: token vectors, mean-pooled, normalised."""

    def __init__(self, tokenizer: Any, vectors: Any, *, normalize: bool, key: str) -> None:
        self.tokenizer = tokenizer
        self.vectors = vectors
        self.normalize = normalize
        self.key = key  # changes when the model does: part of every chunk's fingerprint

    @classmethod
    def load(cls, folder: Path) -> StaticModel:
        import numpy as np
        from tokenizers import Tokenizer

        missing = [f for f in MODEL_FILES if not (folder / f).is_file()]
        if missing:
            raise MemoirError(f"the concept model in {folder} lacks {', '.join(missing)}")
        try:
            config = json.loads(read_text_safely(folder / "config.json", max_bytes=1 << 20))
            table = _mapped_table(folder / "model.safetensors")
            if table is None:  # not float32: read whole and converted
                from safetensors.numpy import load_file

                tensors = load_file(str(folder / "model.safetensors"))
                table = tensors.get("embeddings")
                if table is None:
                    table = next(iter(tensors.values()))
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as err:  # a damaged download: say which folder to delete
            raise MemoirError(
                f"the concept model in {folder} cannot be read ({err}); delete the folder "
                "and it is fetched again"
            ) from None
        st = (folder / "model.safetensors").stat()
        key = hashlib.sha256(
            f"{MODEL_ID}:{st.st_size}:{read_text_safely(folder / 'config.json')}".encode()
        ).hexdigest()[:16]
        return cls(
            tokenizer,
            np.asarray(table, dtype=np.float32),
            normalize=bool(config.get("normalize", True)),
            key=key,
        )

    def knows(self, word: str) -> bool:
        """Whether the vocabulary holds ``word`` whole (one token, not spelled in pieces)."""
        found = self.tokenizer.token_to_id(word.lower())
        return found is not None and found != self.tokenizer.token_to_id(UNKNOWN)

    def encode(self, texts: list[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.vectors.shape[1]), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        limit = self.vectors.shape[0]
        for i, enc in enumerate(encodings):
            ids = [t for t in enc.ids if 0 <= t < limit]
            if ids:
                out[i] = self.vectors[ids].mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def _mapped_table(path: Path) -> Any:
    """The model's table (``embeddings``, else its first tensor) mapped read-only when it is
    little-endian float32, as model2vec publishes it: a query reads only the rows of its
    tokens instead of the whole file. None for any other dtype (the caller reads it whole)."""
    import mmap

    import numpy as np

    from memoir_tui.core.base.safeio import open_for_reading, parse_json_bounded

    with open_for_reading(path, within=path.parent, follow_symlinks=False) as fh:
        size = os.fstat(fh.fileno()).st_size
        (length,) = struct.unpack("<Q", fh.read(8))
        if length > min(size - 8, 1 << 24):
            raise ValueError("its header is longer than the file")
        header = parse_json_bounded(fh.read(length))
        name = (
            "embeddings"
            if "embeddings" in header
            else next(k for k in header if k != "__metadata__")
        )
        info = header[name]
        if info.get("dtype") != "F32" or len(info.get("shape", ())) != 2:
            return None
        rows, dims = (int(n) for n in info["shape"])
        begin, end = (int(n) for n in info["data_offsets"])
        start = 8 + length + begin
        if end - begin != rows * dims * 4 or start + rows * dims * 4 > size:
            raise ValueError("its table does not fit the file")
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    return np.frombuffer(mapped, dtype="<f4", count=rows * dims, offset=start).reshape(rows, dims)


def fetch_model(
    folder: Path,
    *,
    progress: Progress | None = None,
    opener: Callable[..., Any] | None = None,
) -> None:
    """Download the model's files its authors publish into ``folder`` (once)."""
    import urllib.error
    import urllib.request

    open_url = opener or urllib.request.urlopen
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    for name in MODEL_FILES:
        target = folder / name
        if target.is_file():
            continue
        url = MODEL_URL.format(model=MODEL_ID, file=name)
        part = folder / f"{name}.part"
        with contextlib.suppress(OSError):
            part.unlink()  # a killed fetch's part (or anything planted there): never followed
        try:
            # "xb": O_EXCL, so a link at the name is never written through
            with open_url(url, timeout=30) as response, open(part, "xb") as out:
                total = int(response.headers.get("Content-Length") or 0)
                done = 0
                while chunk := response.read(1 << 20):
                    out.write(chunk)
                    done += len(chunk)
                    if progress is not None:
                        size = f" / {total / 1e6:.1f}" if total else ""
                        progress(f"fetching {MODEL_ID} {name}: {done / 1e6:.1f}{size} MB")
            os.replace(part, target)
        except (urllib.error.URLError, OSError, ValueError) as err:
            with contextlib.suppress(OSError):
                part.unlink()
            reason = getattr(err, "reason", None) or err
            raise MemoirError(
                f"concept search needs its model ({MODEL_ID}, {MODEL_SIZE_HINT}) and it could "
                f"not be fetched ({reason}); connect once and run `memoir-tui index`, or put "
                f"its files ({', '.join(MODEL_FILES)}) in {folder}"
            ) from None


def load_model(cache: Path, *, fetch: bool, progress: Progress | None = None) -> StaticModel | None:
    """The model from the cache; fetched first when ``fetch`` (never on the query path)."""
    folder = model_dir(cache)
    if not all((folder / f).is_file() for f in MODEL_FILES):
        if not fetch:
            return None
        fetch_model(folder, progress=progress)
    return StaticModel.load(folder)


# --- the vectors beside the index -------------------------------------------------------------
#
# Two files beside the index, both 0600 and rebuildable:
#
# - ``…-vectors`` (SQLite, ``PRAGMA user_version = FORMAT``): ``docs(row, key, fp)``, each
#   document's row in the matrix and its chunk's fingerprint, so a rebuild embeds only the
#   chunks whose fingerprint is new; ``meta`` holds the token of the matrix it describes.
# - ``…-vectors.f32``: a 64-byte header (magic, format, rows, dims, that token) and then every
#   document's vector, float32, already normalised, one contiguous row-major matrix. A query
#   maps it (``mmap``): no per-row read or conversion, only the pages the product touches,
#   and it reads the keys of the few rows it returns, never all of them.
#
# A file of another format (the SQLite of format 1 held float16 blobs per chunk) or a matrix
# whose token is not the SQLite's (a build killed between the two writes) is never read: a
# query falls back to nothing, the next build re-embeds everything.

FORMAT = 2
MAGIC = b"MEMOIRV\0"
HEADER = 64  # bytes before the matrix: keeps its rows aligned
_HEAD = struct.Struct("<8sIII16s")


def matrix_path(index_path: Path) -> Path:
    return Path(f"{index_path}-vectors.f32")


def _fingerprint(model: StaticModel, text: str) -> str:
    return hashlib.sha256(f"{model.key}\0{text}".encode()).hexdigest()[:32]


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS docs(row INTEGER PRIMARY KEY, key TEXT NOT NULL, fp TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;"
)


def _open(path: Path) -> sqlite3.Connection:
    """The fingerprint table for writing; a file of another format is emptied first (its
    vectors are re-embedded, never reinterpreted)."""
    from memoir_tui.core.base.safeio import create_exclusive, write_target

    write_target(path, within=path.parent)  # a link out is refused before SQLite opens it
    if not path.exists():
        with contextlib.suppress(FileExistsError):
            create_exclusive(path, b"", within=path.parent)
    conn = sqlite3.connect(path, timeout=10, check_same_thread=False)
    if conn.execute("PRAGMA user_version").fetchone()[0] != FORMAT:
        with conn:
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            ).fetchall():
                conn.execute(f'DROP TABLE IF EXISTS "{name}"')
        conn.execute("VACUUM")  # the old blobs' pages are given back
        conn.execute(f"PRAGMA user_version = {FORMAT}")
    conn.executescript(_SCHEMA)
    return conn


def _doc_key(path: str, name: str) -> str:
    return f"{path}\0{name}"


def _chunks(index_conn: sqlite3.Connection) -> Iterable[tuple[str, str]]:
    """(key, chunk text) for every document: name, description, the start of the body."""
    from memoir_tui.core.base.fsutil import read_regular

    for path, name, description, text, body_line in index_conn.execute(
        "SELECT path, name, description, text, body_line FROM docs ORDER BY path"
    ):
        body = text
        if not body:
            try:
                data = read_regular(path, max_bytes=CHUNK_CHARS * 4 + 4096)
                lines = data.decode("utf-8", errors="replace").splitlines()
                body = "\n".join(lines[body_line:])
            except OSError:
                body = ""
        chunk = "\n".join(p for p in (name, description, body[:CHUNK_CHARS]) if p)
        yield _doc_key(path, name), chunk


def _map(path: Path, token: str) -> Any:
    """The matrix in ``path`` mapped read-only, or None unless its header is this format's
    and carries ``token`` and its size is what the header says."""
    import mmap

    import numpy as np

    from memoir_tui.core.base.safeio import open_for_reading

    try:
        with open_for_reading(path, within=path.parent, follow_symlinks=False) as fh:
            head = fh.read(HEADER)
            if len(head) < HEADER:
                return None
            magic, fmt, rows, dims, tok = _HEAD.unpack_from(head)
            size = os.fstat(fh.fileno()).st_size
            if (
                magic != MAGIC
                or fmt != FORMAT
                or tok != bytes.fromhex(token)
                or rows == 0
                or size != HEADER + rows * dims * 4
            ):
                return None
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    return np.frombuffer(mapped, dtype=np.float32, count=rows * dims, offset=HEADER).reshape(
        rows, dims
    )


def _token(conn: sqlite3.Connection) -> str | None:
    if conn.execute("PRAGMA user_version").fetchone()[0] != FORMAT:
        return None
    try:
        row = conn.execute("SELECT v FROM meta WHERE k = 'matrix'").fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def build(
    index_conn: sqlite3.Connection,
    index_path: Path,
    model: StaticModel,
    *,
    progress: Progress | None = None,
) -> tuple[int, int]:
    """Bring the vectors up to date with the index: (chunks embedded, chunks reused)."""
    import secrets

    import numpy as np

    from memoir_tui.core.base.safeio import write_file_safely

    dims = int(model.vectors.shape[1])
    conn = _open(vectors_path(index_path))
    try:
        token = _token(conn)
        old = _map(matrix_path(index_path), token) if token else None
        have: dict[str, int] = {}
        before: list[tuple[str, str]] = []
        if old is not None and old.shape[1] == dims:
            before = conn.execute("SELECT key, fp FROM docs ORDER BY row").fetchall()
            have = {fp: row for row, (_key, fp) in enumerate(before) if row < old.shape[0]}
        docs: list[tuple[str, str]] = []
        todo: dict[str, str] = {}
        for key, chunk in _chunks(index_conn):
            fp = _fingerprint(model, chunk)
            docs.append((key, fp))
            if fp not in have:
                todo[fp] = chunk
        if old is not None and not todo and docs == before and len(docs) == old.shape[0]:
            return 0, len(docs)  # nothing changed: neither file is rewritten
        fresh: dict[str, Any] = {}
        items = list(todo.items())
        for start in range(0, len(items), BATCH):
            batch = items[start : start + BATCH]
            vecs = model.encode([c for _fp, c in batch])
            fresh.update(zip((fp for fp, _c in batch), vecs, strict=True))
            if progress is not None:
                progress(f"concept index: {min(start + BATCH, len(items))}/{len(items)} chunks")
        matrix = np.empty((len(docs), dims), dtype=np.float32)
        for row, (_key, fp) in enumerate(docs):
            matrix[row] = fresh[fp] if fp in fresh else old[have[fp]]
        reused = sum(1 for _key, fp in docs if fp not in fresh)
        token = secrets.token_hex(16)  # the header's 16 bytes
        head = _HEAD.pack(MAGIC, FORMAT, len(docs), dims, bytes.fromhex(token))
        path = matrix_path(index_path)
        if docs:
            write_file_safely(
                path, head.ljust(HEADER, b"\0") + matrix.tobytes(), within=path.parent, mode=0o600
            )
        del old  # the old file's pages (a replaced file stays mapped until then)
        with conn:
            conn.execute("DELETE FROM docs")
            conn.executemany(
                "INSERT INTO docs(row, key, fp) VALUES (?, ?, ?)",
                [(row, key, fp) for row, (key, fp) in enumerate(docs)],
            )
            conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('matrix', ?)", (token,))
        return len(items), reused
    finally:
        conn.close()


_MATRICES: dict[str, tuple[tuple[int, int, int], str, Any]] = {}


def _matrix(index_path: Path, conn: sqlite3.Connection) -> Any:
    """The mapped matrix that ``conn``'s fingerprint table describes, or None; a long-lived
    process (the MCP server) keeps the mapping between queries until the file changes."""
    token = _token(conn)
    if token is None:
        return None
    path = matrix_path(index_path)
    stamp = file_stamp(path)
    if stamp is None:
        return None
    hit = _MATRICES.get(str(path))
    if hit is not None and hit[0] == stamp and hit[1] == token:
        return hit[2]
    matrix = _map(path, token)
    _MATRICES.clear()
    if matrix is not None:
        _MATRICES[str(path)] = (stamp, token, matrix)
    return matrix


def search(
    index_path: Path, model: StaticModel, query: str, *, limit: int = CANDIDATES
) -> list[tuple[str, str, float]]:
    """(path, name, cosine) of the documents nearest ``query``, best first."""
    import numpy as np

    path = vectors_path(index_path)
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        conn.execute("BEGIN")  # one snapshot: the token and the rows' keys agree
        matrix = _matrix(index_path, conn)
        if matrix is None or matrix.shape[1] != model.vectors.shape[1]:
            return []
        q = model.encode([query])[0]
        scores = matrix @ q
        top = np.argpartition(-scores, min(limit, len(scores) - 1))[:limit]
        top = top[np.argsort(-scores[top])]
        out = []
        for i in top:
            found = conn.execute("SELECT key FROM docs WHERE row = ?", (int(i),)).fetchone()
            if found is None:
                continue
            p, _, name = found[0].partition("\0")
            out.append((p, name, float(scores[int(i)])))
        return out
    finally:
        conn.close()


def hint_once(cache: Path) -> bool:
    """True the first time (per cache): the caller says concept search is available."""
    marker = cache / HINT_MARKER
    if marker.exists():
        return False
    try:
        cache.mkdir(parents=True, exist_ok=True, mode=0o700)
        from memoir_tui.core.base.safeio import create_exclusive

        create_exclusive(marker, b"", within=cache)
    except OSError:
        return False
    return True


def status(index_path: Path, cache: Path) -> Mapping[str, Any]:
    """What the extra has: installed, model present, vectors built."""
    folder = model_dir(cache)
    return {
        "installed": available(),
        "model": all((folder / f).is_file() for f in MODEL_FILES),
        "vectors": vectors_path(index_path).exists(),
    }
