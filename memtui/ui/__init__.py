"""The Textual user interface: app, screens, widgets, the command table."""
