"""``memoir-tui config``: where the config lives, or the effective config."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("config", help="show where the config lives, or the effective config")
    p.add_argument("action", choices=["path", "show"])
    p.set_defaults(run=cmd_config)


def cmd_config(ns: argparse.Namespace) -> int:
    from memoir_tui.core import config_path, default_store_dir, load_config, render_config

    root = ns.store or default_store_dir()
    if ns.action == "path":
        print(config_path(root))
        return 0
    config = load_config(root)
    for warning in config.warnings:
        print(f"memoir-tui: {warning}", file=sys.stderr)
    sys.stdout.write(render_config(config))
    return 0
