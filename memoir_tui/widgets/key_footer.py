"""The footer: Textual's, rebuilt only when the keys it shows have changed."""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer

Signature = tuple[Any, ...]


class KeyFooter(Footer):
    """Textual's ``Footer``, without rebuilding itself when nothing it shows changed.

    The stock footer recomposes (a fresh widget per key, each styled again)
    every time a screen publishes "bindings updated", and a single key press
    that moves the focus or switches a pane publishes that several times. Most
    of those rebuilds would draw the same keys; skipping them makes a pane
    switch several times cheaper. It has no bindings of its own.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: Signature | None = None

    def keys_shown(self) -> Signature:
        """Everything the footer draws: each shown binding as the screen has it now."""
        keys = tuple(
            (
                binding.key,
                binding.action,
                binding.description,
                binding.group,
                enabled,
                tooltip,
                self.app.get_key_display(binding),
            )
            for (_node, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )
        palette = self.app.COMMAND_PALETTE_BINDING if self.show_command_palette else None
        palette_entry = self.screen.active_bindings.get(palette) if palette else None
        palette_key = (palette_entry.binding.key, palette_entry.enabled) if palette_entry else None
        return (self.compact, self._bindings_ready, keys, palette_key)

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        shown = self.keys_shown()
        if shown == self._shown:
            return
        self._shown = shown
        await super().recompose()
