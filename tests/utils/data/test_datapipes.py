"""DataPipes against PyTorch's: each pipeline is built the same way from `ember.utils.data` and
`torch.utils.data` and must yield the same items (shuffles: the same multiset), the same
lengths, the same errors."""
import importlib
import warnings

import pytest
import torch

import ember


def _mods(lib):
    name = lib.__name__
    return (importlib.import_module(f"{name}.utils.data"),
            importlib.import_module(f"{name}.utils.data.datapipes.iter"),
            importlib.import_module(f"{name}.utils.data.datapipes.map"))


def _iw(lib, items):
    return _mods(lib)[1].IterableWrapper(items)


def _sw(lib, items):
    return _mods(lib)[2].SequenceWrapper(items)


def _plain(value):
    if isinstance(value, (list, tuple)):
        return type(value).__name__ == "tuple", [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return ("tensor", value.tolist(), str(value.dtype).split(".")[1])
    return value


PIPELINES = {
    "map": lambda t: _iw(t, range(10)).map(lambda x: x * 2),
    "map input_col": lambda t: _iw(t, [(1, 2), (3, 4)]).map(lambda x: x * 10, input_col=0),
    "map output_col -1": lambda t: _iw(t, [(1, 2), (3, 4)]).map(lambda x: x * 10, input_col=0,
                                                                 output_col=-1),
    "map two cols": lambda t: _iw(t, [(1, 2, 3), (4, 5, 6)]).map(lambda a, b: a + b,
                                                                  input_col=[0, 2]),
    "filter": lambda t: _iw(t, range(10)).filter(lambda x: x % 3 == 0),
    "batch": lambda t: _iw(t, range(10)).batch(3),
    "batch drop_last": lambda t: _iw(t, range(10)).batch(3, drop_last=True),
    "unbatch": lambda t: _iw(t, range(10)).batch(3).batch(2).unbatch(),
    "unbatch 2": lambda t: _iw(t, range(10)).batch(3).batch(2).unbatch(unbatch_level=2),
    "unbatch -1": lambda t: _iw(t, range(10)).batch(3).batch(2).unbatch(unbatch_level=-1),
    "collate": lambda t: _iw(t, [[1, 2], [3, 4]]).collate(),
    "batch collate": lambda t: _iw(t, [(i, float(i)) for i in range(5)]).batch(2).collate(),
    "zip": lambda t: _iw(t, range(5)).zip(_iw(t, "abc")),
    "concat": lambda t: _iw(t, range(3)).concat(_iw(t, "ab")),
    "mux": lambda t: _iw(t, [1, 2]).mux(_iw(t, [10, 20, 30])),
    "groupby": lambda t: _iw(t, range(10)).groupby(lambda x: x % 3),
    "groupby size": lambda t: _iw(t, range(10)).groupby(lambda x: x % 3, group_size=2),
    "groupby keep_key": lambda t: _iw(t, range(7)).groupby(lambda x: x % 2, keep_key=True),
    "groupby end flush": lambda t: _iw(t, range(10)).groupby(lambda x: x % 3, group_size=3,
                                                             drop_remaining=True),
    "groupby buffer full": lambda t: _iw(t, range(12)).groupby(lambda x: x % 4, buffer_size=5),
    "groupby buffer drop": lambda t: _iw(t, range(12)).groupby(
        lambda x: x % 4, buffer_size=5, group_size=3, guaranteed_group_size=2,
        drop_remaining=True),
    "map-style map": lambda t: _sw(t, range(5)).map(lambda x: x + 1),
    "map-style batch": lambda t: _sw(t, range(5)).batch(2),
    "map-style concat": lambda t: _sw(t, range(3)).concat(_sw(t, "ab")),
    "map-style zip": lambda t: _sw(t, range(5)).zip(_sw(t, "abcdef")),
}


@pytest.mark.parametrize("name", list(PIPELINES))
def test_pipeline_yields_like_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, ours = PIPELINES[name](torch), PIPELINES[name](ember)
        assert _plain(list(ours)) == _plain(list(theirs))
        assert _plain(list(ours)) == _plain(list(ours))     # iterating again starts over
        try:
            expected = len(theirs)
        except TypeError:
            with pytest.raises(TypeError):
                len(ours)
        else:
            assert len(ours) == expected


def test_map_style_indexing():
    for lib in (torch, ember):
        dp = _sw(lib, range(5))
        assert dp.map(lambda x: x + 1)[1] == 2
        assert list(dp.batch(2)[2]) == [4]
        assert dp.concat(_sw(lib, "ab"))[6] == "b"
        with pytest.raises(IndexError):
            dp.batch(2)[3]


def test_shuffles_keep_the_items():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib in (torch, ember):
            assert sorted(_iw(lib, range(50)).shuffle()) == list(range(50))
            assert sorted(_iw(lib, range(50)).shuffle(buffer_size=4)) == list(range(50))
            assert len(_iw(lib, range(50)).shuffle()) == 50
            shuffled = _sw(lib, range(20)).shuffle()
            assert isinstance(shuffled, lib.utils.data.IterDataPipe)
            assert sorted(shuffled) == list(range(20))
            assert list(_iw(lib, range(5)).shuffle().set_shuffle(False)) == list(range(5))
    ember.manual_seed(0)
    first = list(_iw(ember, range(30)).shuffle())
    ember.manual_seed(0)
    assert list(_iw(ember, range(30)).shuffle()) == first     # seeded from ember's generator
    assert first != list(range(30))


def test_fork_and_demux():
    for lib in (torch, ember):
        a, b = _iw(lib, range(6)).fork(2)
        assert (list(a), list(b)) == (list(range(6)), list(range(6)))
        assert _iw(lib, range(3)).fork(1).__class__.__name__.startswith("IterableWrapper")
        even, odd = _iw(lib, range(6)).demux(2, lambda x: x % 2)
        assert (list(even), list(odd)) == ([0, 2, 4], [1, 3, 5])
        kept, = _iw(lib, range(6)).demux(1, lambda x: 0 if x < 3 else None, drop_none=True)
        assert list(kept) == [0, 1, 2]
        a, b = _iw(lib, range(10)).fork(2, buffer_size=2)
        with pytest.raises(BufferError):
            list(a)
        with pytest.raises(ValueError):
            _iw(lib, range(3)).fork(0)


def test_sharding_filter_splits_the_items():
    for lib in (torch, ember):
        settings = importlib.import_module(f"{lib.__name__}.utils.data.graph_settings")
        shards = []
        for instance in range(3):
            dp = _iw(lib, range(10)).sharding_filter().map(lambda x: x)
            settings.apply_sharding(dp, 3, instance)
            shards.append((list(dp), len(dp)))
        assert shards == [([0, 3, 6, 9], 4), ([1, 4, 7], 3), ([2, 5, 8], 3)]
        twice = _iw(lib, range(10)).sharding_filter().sharding_filter()
        with pytest.raises(RuntimeError, match="Sharding twice"):
            settings.apply_sharding(twice, 2, 0)


def test_functional_registration_and_errors():
    for lib in (torch, ember):
        data = lib.utils.data

        @data.functional_datapipe(f"triple_{lib.__name__}")
        class Triple(data.IterDataPipe):
            def __init__(self, dp):
                self.dp = dp

            def __iter__(self):
                for x in self.dp:
                    yield 3 * x
        assert list(getattr(_iw(lib, [1, 2]), f"triple_{lib.__name__}")()) == [3, 6]
        with pytest.raises(Exception, match="already taken"):
            data.functional_datapipe(f"triple_{lib.__name__}")(Triple)
        with pytest.raises(AttributeError, match="has no attribute 'nope"):
            _iw(lib, [1]).nope  # noqa: B018
        with pytest.raises(ValueError, match="Boolean output is required"):
            list(_iw(lib, [1]).filter(lambda x: x))
        with pytest.raises(AssertionError):
            _iw(lib, [1]).batch(0)
        assert isinstance(_iw(lib, [1]), data.IterableDataset)
        assert isinstance(_sw(lib, [1]), data.Dataset)
        assert issubclass(data.DFIterDataPipe, data.IterDataPipe)


def test_determinism_decorators():
    for lib in (torch, ember):
        data = lib.utils.data

        @data.non_deterministic
        class Random(data.IterDataPipe):
            def __iter__(self):
                yield 1
        assert list(Random()) == [1]
        with data.guaranteed_datapipes_determinism(), \
                pytest.raises(TypeError, match="non-deterministic"):
            Random()
        assert list(Random()) == [1]


def test_data_chunk_is_a_list():
    for lib in (torch, ember):
        chunk = lib.utils.data.DataChunk([1, 2, 3])
        assert chunk == [1, 2, 3] and isinstance(chunk, list)
        assert list(chunk.raw_iterator()) == [1, 2, 3]
        assert chunk.as_str() == "[1, 2, 3]"


def test_runtime_and_argument_validation():
    data = ember.utils.data

    class Ints(data.IterDataPipe[int]):
        def __init__(self, items):
            self.items = items

        @data.runtime_validation
        def __iter__(self):
            yield from self.items
    assert list(Ints([1, 2])) == [1, 2]
    with pytest.raises(RuntimeError, match="Expected an instance as subtype"):
        list(Ints([1, "a"]))
    with data.runtime_validation_disabled():
        assert list(Ints([1, "a"])) == [1, "a"]
    for lib in (torch, ember):
        with pytest.raises(TypeError, match="Can not decorate function"):
            lib.utils.data.runtime_validation(lambda self: None)

    class Strs(data.IterDataPipe[str]):
        def __iter__(self):
            yield "a"

    class Reader(data.IterDataPipe):
        @data.argument_validation
        def __init__(self, dp: data.IterDataPipe[int]):
            self.dp = dp

        def __iter__(self):
            yield from self.dp
    assert list(Reader(Ints([4]))) == [4]
    assert list(Reader([5])) == [5]             # not a DataPipe: not checked, as in PyTorch
    with pytest.raises(TypeError, match="Expected type of argument 'dp'"):
        Reader(Strs())


def test_datapipe_through_the_dataloader():
    for lib in (torch, ember):
        dp = _iw(lib, range(10)).map(lambda x: x * 2)
        batches = [b.tolist() for b in lib.utils.data.DataLoader(dp, batch_size=4)]
        assert batches == [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18]]
