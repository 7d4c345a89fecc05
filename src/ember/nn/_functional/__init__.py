"""The functional forms of the layers, one file per family (each lists its names in `__all__`);
`ember.nn.functional` re-exports them all."""
