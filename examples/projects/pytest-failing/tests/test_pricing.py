from decimal import Decimal

import pytest

from pricing import (LineItem, apply_discount, parse_price, split_evenly, subtotal, vat)


@pytest.mark.parametrize("qty", range(1, 21))
def test_subtotal_scales_with_quantity(qty):
    items = [LineItem("A-1", Decimal("2.50"), qty)]
    assert subtotal(items) == Decimal("2.50") * qty


def test_subtotal_of_nothing_is_zero():
    assert subtotal([]) == Decimal("0")


@pytest.mark.parametrize("rate,expected", [("0.10", "90.00"), ("0.25", "75.00"), ("0", "100.00")])
def test_discount(rate, expected):
    assert apply_discount(Decimal("100"), Decimal(rate)) == Decimal(expected)


def test_discount_is_capped():
    # A 90% discount must be capped at MAX_DISCOUNT (50%).
    assert apply_discount(Decimal("100"), Decimal("0.90")) == Decimal("50.00")


@pytest.mark.parametrize("amount,expected", [("10", "2.00"), ("19.99", "4.00"), ("0.04", "0.01")])
def test_vat(amount, expected):
    assert vat(Decimal(amount)) == Decimal(expected)


def test_split_evenly_keeps_every_cent():
    shares = split_evenly(Decimal("100.00"), 3)
    assert sum(shares) == Decimal("100.00")


def test_split_rejects_zero_parts():
    with pytest.raises(ValueError):
        split_evenly(Decimal("1"), 0)


@pytest.mark.parametrize("text,expected", [("12,50 €", "12.50"), (" 3.20", "3.20"), ("7", "7")])
def test_parse_price(text, expected):
    assert parse_price(text) == Decimal(expected)


def test_parse_price_rejects_words():
    with pytest.raises(ArithmeticError):
        parse_price("twelve")
