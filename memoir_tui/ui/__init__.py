"""What the faces share that is not a widget: the store watcher, the latest-read idiom,
the recall source, rendering helpers and the entry document."""
