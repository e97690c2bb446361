"""One module per reusable widget."""
