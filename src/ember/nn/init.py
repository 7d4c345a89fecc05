"""`ember.nn.init`: initialisers of parameters (being written)."""
