"""`import ember` against `import torch`, NumPy and ml-dtypes alone, each in a fresh interpreter,
with bytecode cached as an installed package has it."""
from __future__ import annotations

from common import import_time_s


def main() -> None:
    rounds = 5
    numpy_s = import_time_s("numpy", rounds)
    ml_dtypes_s = import_time_s("ml_dtypes", rounds)
    ember_s = import_time_s("ember", rounds)
    torch_s = import_time_s("torch", rounds)
    print("\n## Import time (median of fresh processes)\n")
    print("| module | time | vs torch |")
    print("| --- | ---: | ---: |")
    for name, value in (("numpy", numpy_s), ("ml_dtypes (NumPy included)", ml_dtypes_s),
                        ("ember", ember_s), ("torch", torch_s)):
        print(f"| {name} | {value * 1000:.0f} ms | {value / torch_s:.2f}x |")
    print(f"\nember above NumPy: {(ember_s - numpy_s) * 1000:.0f} ms (target <= 100 ms); "
          f"ember / torch: {ember_s / torch_s:.2f} (target <= 0.3)")


if __name__ == "__main__":
    main()
