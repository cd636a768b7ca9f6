// Placeholder so the library is never empty; delete once real sources exist.
