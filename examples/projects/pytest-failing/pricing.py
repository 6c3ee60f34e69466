"""A small pricing module with two real bugs, for plugline's demo.

`plugline run -- python3 -m pytest examples/projects/pytest-failing` runs its test suite:
most tests pass, a few fail, and plugline's summary keeps every failure.
"""
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

MAX_DISCOUNT = Decimal("0.50")


@dataclass(frozen=True)
class LineItem:
    sku: str
    unit_price: Decimal
    quantity: int


def subtotal(items):
    return sum((item.unit_price * item.quantity for item in items), Decimal("0"))


def apply_discount(amount, rate):
    # Bug: the cap on the discount rate is never applied.
    return (amount * (Decimal("1") - rate)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def vat(amount, rate=Decimal("0.20")):
    return (amount * rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def split_evenly(amount, parts):
    if parts <= 0:
        raise ValueError("parts must be positive")
    share = (amount / parts).quantize(Decimal("0.01"))
    # Bug: the rounding remainder is lost instead of going to the last share.
    return [share] * parts


def parse_price(text):
    cleaned = text.strip().replace("€", "").replace(",", ".")
    return Decimal(cleaned)
