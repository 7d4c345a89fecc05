"""`ember.nn.utils`: gradient clipping, parametrizations, rnn packing ... (being written)."""
