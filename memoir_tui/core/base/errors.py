"""Errors the core raises for people to read. Faces show ``str(err)``, never a traceback."""

from __future__ import annotations


class MemoirError(Exception):
    """Base class: a refusal or failure with a message fit for a person or a model."""


class EmptyTextError(MemoirError):
    pass


class TextTooLongError(MemoirError):
    pass


class NoMatchError(MemoirError):
    pass


class AmbiguousMatchError(MemoirError):
    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


class ReadOnlyStoreError(MemoirError):
    pass


class ForgottenDecisionError(MemoirError):
    """A decision with this identity was hidden or purged; identity is text, so it stays gone."""


class InvalidDateError(MemoirError):
    pass
