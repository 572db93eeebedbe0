"""Safe file I/O on a disk that may be hostile: the one helper for every write to a
path and every read of a file.

**Writes never follow a link they did not make.** ``write_target`` decides where a
write to ``path`` lands: the parent folder is taken by its real path and must lie
inside ``within`` (the folder whose owner reads the file: the store, a host tool's
folder, a project); a last component that is a symlink is followed only when its
target lies inside ``within`` too, and otherwise the write is refused with a
sentence naming the link and its target (``LinkOutsideError``). ``write_file_safely``
then writes through a descriptor of that real parent (``O_NOFOLLOW``, a temp file
created ``O_EXCL`` and renamed over the name), so a link or folder swapped in after
the check is replaced, never written through.

**Reads never hang.** ``read_file_safely`` opens only regular files: it looks before
opening (a FIFO or a device is never opened), opens non-blocking, checks the open
descriptor again, and reads at most ``max_bytes``. ``read_json_safely`` and
``read_toml_safely`` bound the nesting depth before parsing. Every refusal is an
``OSError`` whose ``str`` is one sentence, so callers that skip unreadable files
skip these too and faces can print them as they are.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any, BinaryIO

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.base.fsutil import _hold_temp_lock, owned_temp

PathLike = str | os.PathLike[str]

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_DEPTH = 64


class LinkOutsideError(MemoirError, OSError):
    """A write would go through a link (or a linked folder) to a place outside the folder
    its owner reads: refused, nothing written there."""

    def __init__(self, message: str, *, link: str = "", target: str = "") -> None:
        super().__init__(message)
        self.link = link
        self.target = target

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "a link leads outside"


class UnsafeFileError(MemoirError, OSError):
    """A file that must not be read: not a regular file, too large or nested too deep."""

    def __str__(self) -> str:
        return self.strerror or (str(self.args[0]) if self.args else "not a regular file")


def _inside(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def write_target(path: PathLike, *, within: PathLike) -> Path:
    """Where a write to ``path`` lands: its real parent joined with its name, or, when
    ``path`` is a link whose target is inside ``within``, that target. Raises
    ``LinkOutsideError`` (naming the link and its target) for anything outside."""
    p = Path(os.path.abspath(path))
    base = os.path.realpath(within)
    parent_real = os.path.realpath(p.parent)
    if not _inside(parent_real, base):
        raise LinkOutsideError(
            f"{p.parent} leads to {parent_real}, outside {within}; "
            f"{p.name} was left alone there (nothing written through the link)",
            link=str(p.parent),
            target=parent_real,
        )
    real = Path(parent_real) / p.name
    try:
        st = os.lstat(real)
    except FileNotFoundError:
        return real
    except NotADirectoryError:
        return real
    if stat.S_ISLNK(st.st_mode):
        target = os.path.realpath(real)
        if not _inside(target, base):
            raise LinkOutsideError(
                f"{p} is a link to {target}, outside {within}; "
                "left as it is (nothing written through the link)",
                link=str(p),
                target=target,
            )
        return Path(target)
    return real


def owner_folder(path: PathLike, *roots: PathLike | None) -> Path:
    """The folder a link at ``path`` may lead into: the first of ``roots`` holding it (the
    store, then the home), else the file's own folder."""
    here = os.path.abspath(path)
    for base in roots:
        if not base:
            continue
        root = os.path.abspath(base)
        if root != os.sep and here.startswith(root.rstrip(os.sep) + os.sep):
            return Path(root)
    return Path(here).parent


def home_folder() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def _open_dir(directory: Path) -> int:
    return os.open(directory, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC)


def _ensure_parent(target: Path, within: PathLike) -> None:
    if not target.parent.is_dir():
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_target(target, within=within)  # made now: still inside?


def write_file_safely(
    path: PathLike, data: bytes, *, within: PathLike, mode: int | None = None
) -> Path:
    """Replace the file at ``path`` (see ``write_target``) with ``data`` atomically, through
    its real parent's descriptor; returns where it wrote. An existing file's permission
    bits are kept unless ``mode`` is given (a new one is 0600 unless ``mode``)."""
    target = write_target(path, within=within)
    _ensure_parent(target, within)
    dfd = _open_dir(target.parent)
    try:
        if mode is None:
            with contextlib.suppress(FileNotFoundError):
                mode = stat.S_IMODE(os.stat(target.name, dir_fd=dfd, follow_symlinks=False).st_mode)
        while True:
            name = f".{target.name}.{secrets.token_hex(4)}.tmp"
            with owned_temp(target.parent / name):
                try:
                    fd = os.open(
                        name,
                        os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC,
                        0o600,
                        dir_fd=dfd,
                    )
                except FileExistsError:
                    continue
                try:
                    # Named by ``fsutil.OUR_TEMP_PATTERNS`` and held under an ``flock`` until
                    # the rename, so a sweep removes it only once its writer is gone.
                    _hold_temp_lock(fd)
                    with os.fdopen(fd, "wb", closefd=False) as fh:
                        fh.write(data)
                        fh.flush()
                        if mode is not None:
                            os.fchmod(fh.fileno(), mode)
                        os.fsync(fh.fileno())
                    os.replace(name, target.name, src_dir_fd=dfd, dst_dir_fd=dfd)
                except BaseException:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(name, dir_fd=dfd)
                    raise
                finally:
                    os.close(fd)
            break
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        os.close(dfd)
    return target


def open_for_append(path: PathLike, *, within: PathLike, mode: int = 0o600) -> int:
    """A descriptor open for ``O_APPEND`` writes on ``path`` (created ``mode``), never through
    a link and never on anything but a regular file."""
    target = write_target(path, within=within)
    _ensure_parent(target, within)
    dfd = _open_dir(target.parent)
    try:
        fd = os.open(
            target.name,
            os.O_RDWR | os.O_APPEND | os.O_CREAT | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC,
            mode,
            dir_fd=dfd,
        )
    except OSError as exc:  # a folder (or a link swapped in) there: a sentence naming it
        if exc.errno not in (errno.EISDIR, errno.ELOOP, errno.ENXIO):
            raise
        said = not_read_sentence(path).replace("; not read", "")
        raise UnsafeFileError(exc.errno, f"{said}; nothing was written") from None
    finally:
        os.close(dfd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafeFileError(errno.EINVAL, f"{path} is not a regular file; nothing was written")
    return fd


def create_exclusive(path: PathLike, data: bytes, *, within: PathLike, mode: int = 0o600) -> Path:
    """Create a new file (never replacing anything, a link included: ``FileExistsError``)."""
    target = write_target(path, within=within)
    _ensure_parent(target, within)
    dfd = _open_dir(target.parent)
    try:
        fd = os.open(
            target.name,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC,
            mode,
            dir_fd=dfd,
        )
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    finally:
        os.close(dfd)
    return target


# --- reads --------------------------------------------------------------------------------


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _refuse_kind(path: PathLike, mode: int) -> UnsafeFileError:
    kind = _kind(mode)
    what = kind if kind == "not a regular file" else f"{kind}, not a regular file"
    return UnsafeFileError(errno.EINVAL, f"{os.fspath(path)} is {what}; not read")


def not_read_sentence(path: PathLike, exc: OSError | None = None) -> str:
    """One sentence naming ``path`` and why it was skipped: what stands there (looked at
    with ``lstat``, never opened) or the error its read raised."""
    if isinstance(exc, MemoirError):
        return str(exc)
    try:
        st = os.lstat(path)
    except OSError as missing:
        exc = exc or missing
    else:
        if stat.S_ISLNK(st.st_mode):
            with contextlib.suppress(OSError):
                return f"{os.fspath(path)} is a link to {os.readlink(path)}; not followed, not read"
            return f"{os.fspath(path)} is a link; not followed, not read"
        if not stat.S_ISREG(st.st_mode):
            return str(_refuse_kind(path, st.st_mode))
    reason = (exc.strerror or str(exc)).rstrip(".").lower() if exc else "it could not be read"
    return f"{os.fspath(path)} could not be read ({reason}); skipped"


def _open_regular(path: PathLike, follow_symlinks: bool) -> int:
    """A descriptor on the regular file at ``path``, looked at before and after opening
    (non-blocking); with ``follow_symlinks=False`` a link is refused (``O_NOFOLLOW``)."""
    before = os.stat(path, follow_symlinks=follow_symlinks)
    if not stat.S_ISREG(before.st_mode):
        if stat.S_ISLNK(before.st_mode):
            raise UnsafeFileError(errno.ELOOP, f"{os.fspath(path)} is a link; not read")
        raise _refuse_kind(path, before.st_mode)
    flags = os.O_RDONLY | _O_NONBLOCK | _O_CLOEXEC | getattr(os, "O_BINARY", 0)
    if not follow_symlinks:
        flags |= _O_NOFOLLOW
    return os.open(path, flags)


def open_for_reading(
    path: PathLike, *, within: PathLike | None = None, follow_symlinks: bool = True
) -> BinaryIO:
    """A binary file object on the regular file at ``path`` (for reading in pieces: a
    transcript from an offset); the checks of ``read_file_safely``, no size bound."""
    if within is not None:
        _refuse_link_out(path, within)
    fd = _open_regular(path, follow_symlinks)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse_kind(path, st.st_mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _refuse_link_out(path: PathLike, within: PathLike) -> None:
    p = os.path.abspath(path)
    real = os.path.realpath(p)
    if not _inside(real, os.path.realpath(within)):
        raise LinkOutsideError(
            f"{p} is a link to {real}, outside {within}; not read", link=p, target=real
        )


def read_file_safely(
    path: PathLike,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    within: PathLike | None = None,
    follow_symlinks: bool = True,
) -> bytes:
    """The bytes of the regular file at ``path`` (a link is followed; with ``within``, only
    to a target inside it). A FIFO, a device, a socket or a folder raises
    ``UnsafeFileError`` without blocking; so does a file larger than ``max_bytes``.
    A missing file raises ``FileNotFoundError`` as usual; with ``follow_symlinks=False``
    a link is refused too (``errno.ELOOP``)."""
    if within is not None:
        _refuse_link_out(path, within)
    fd = _open_regular(path, follow_symlinks)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse_kind(path, st.st_mode)
        if st.st_size > max_bytes:  # refused before reading any of it
            raise _too_large(path, max_bytes)
        chunks = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise _too_large(path, max_bytes)
    return data


def _too_large(path: PathLike, max_bytes: int) -> UnsafeFileError:
    return UnsafeFileError(
        errno.EFBIG, f"{os.fspath(path)} is larger than {max_bytes // 1024:,} KB; not read"
    )


def read_text_safely(
    path: PathLike,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    within: PathLike | None = None,
    errors: str = "strict",
) -> str:
    return read_file_safely(path, max_bytes=max_bytes, within=within).decode("utf-8", errors)


def nesting_depth(text: str, opening: str = "[{", closing: str = "]}") -> int:
    """The deepest bracket nesting of ``text`` outside quoted strings (JSON's and TOML's
    double quotes with backslash escapes, TOML's single-quoted literals)."""
    depth = deepest = 0
    quote = ""
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch == '"' or ch == "'":
            quote = ch
        elif ch in opening:
            depth += 1
            deepest = max(deepest, depth)
        elif ch in closing:
            depth -= 1
    return deepest


def _check_depth(path: PathLike, text: str, max_depth: int) -> None:
    if nesting_depth(text) > max_depth:
        raise UnsafeFileError(
            errno.EINVAL,
            f"{os.fspath(path)} is nested too deeply (more than {max_depth} levels); not read",
        )


def parse_json_bounded(text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """``json.loads`` after checking the nesting depth (``ValueError`` if deeper)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if nesting_depth(text) > max_depth:
        raise ValueError(f"nested too deeply (more than {max_depth} levels)")
    return json.loads(text)


def read_json_safely(
    path: PathLike,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    within: PathLike | None = None,
) -> Any:
    """A JSON file read by ``read_file_safely``, its depth bounded; a parse error is a
    ``ValueError`` as from ``json.loads``."""
    text = read_text_safely(path, max_bytes=max_bytes, within=within)
    _check_depth(path, text, max_depth)
    return json.loads(text)


def read_toml_safely(
    path: PathLike,
    *,
    max_bytes: int = 1024 * 1024,
    max_depth: int = DEFAULT_MAX_DEPTH,
    within: PathLike | None = None,
) -> dict[str, Any]:
    """A TOML file read by ``read_file_safely``, its depth bounded (``tomllib`` errors pass)."""
    import tomllib

    text = read_text_safely(path, max_bytes=max_bytes, within=within)
    _check_depth(path, text, max_depth)
    return tomllib.loads(text)
