"""Text the demo workspace is made of: a small HTTP library and the memory an agent kept for it."""
