"""Long lists of numbers cross the sandbox's edge as bytes, not as decimal text.

A result is plain data: tensors' values (`checks.tensors.encode`), chapter 09's weight samples and the like are lists
of numbers, and that is what the judges read. Between the child and the pool a list of at least `SHORTEST` numbers of
one type travels packed, as `{"packed_f8": base64}` (float64) or `{"packed_i8": base64}` (int64): bit for bit the
same values, at a fraction of the cost of writing, checking and parsing every number as JSON text three times
(child, runner, pool; chapter 01's 76 KB result cost about 6 ms of a submission's 30). Anything else (short lists,
mixed lists, integers beyond int64) travels as it is.

The child packs (`pack`, its last step, bound before the student's code like the rest of the sealer), the runner
checks every packed value (`bounds.bounded`: base64 of whole 8-byte numbers, or the result is invalid), and the pool
puts the lists back (`bounds.bounded(..., restore=True)`, in the same walk). The bytes are in the machine's own
order: the child, its runner and the pool always share one machine.
"""
import binascii
from array import array

SHORTEST = 16
TYPECODES = {"packed_f8": "d", "packed_i8": "q"}
_KEY_OF = {float: "packed_f8", int: "packed_i8"}


class BadPacking(ValueError):
    """A packed value that is not base64 of whole 8-byte numbers."""


def pack(outcome, array=array, b2a=binascii.b2a_base64, key_of=_KEY_OF.get, list_type=list, dict_type=dict,
         shortest=SHORTEST, types=TYPECODES):
    """`outcome` with every long list of floats (or of ints) in it packed (in place, the root excepted); its helpers
    are bound as defaults when this module loads, before any student code, as the sealer's are (`child._sealer`)."""
    stack = [outcome]
    while stack:
        item = stack.pop()
        for index, value in (item.items() if type(item) is dict_type else enumerate(item)):
            kind = type(value)
            if kind is list_type and len(value) >= shortest:
                key = key_of(type(value[0]))
                if key is not None and len(set(map(type, value))) == 1:
                    try:
                        item[index] = {key: b2a(array(types[key], value).tobytes(), newline=False).decode("ascii")}
                        continue
                    except OverflowError:  # an integer beyond int64: sent as it is
                        pass
            if kind is list_type or kind is dict_type:
                stack.append(value)
    return outcome


def numbers(packed):
    """The array of numbers one packed value holds."""
    (key, text), = packed.items()
    if not isinstance(text, str):
        raise BadPacking("a packed value is a string")
    try:
        raw = binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError) as error:
        raise BadPacking(f"not base64: {error}") from None
    if len(raw) % 8:
        raise BadPacking("not whole 8-byte numbers")
    numbers = array(TYPECODES[key])
    numbers.frombytes(raw)
    return numbers
