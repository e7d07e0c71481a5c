"""Reading ML-Metadata: where a store is, and the runs recorded in it."""
