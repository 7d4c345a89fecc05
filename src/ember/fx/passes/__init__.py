"""Passes over fx graphs: `shape_prop.ShapeProp` records each node's tensor metadata by
running the graph."""
