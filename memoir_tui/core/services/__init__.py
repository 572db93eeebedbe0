"""services: see docs/ARCHITECTURE.md (the floors of core)."""
