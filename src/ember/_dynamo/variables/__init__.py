"""VariableTrackers: what the symbolic interpreter holds on its stack and in its locals
(tensors as graph nodes, constants, containers, modules, functions), one family per file;
`builder.py` turns a real value read through a source into one, with its guards."""
