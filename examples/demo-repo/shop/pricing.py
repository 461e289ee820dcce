"""Prices, discounts and taxes."""


class Money:
    def __init__(self, cents):
        self.cents = cents

    def __add__(self, other):
        return Money(self.cents + other.cents)


def round_money(amount):
    return Money(int(round(amount.cents)))


def apply_discount(amount, percent):
    """Apply a percentage discount, rounding to whole cents."""
    return round_money(Money(amount.cents * (100 - percent) / 100))


class TaxTable:
    RATES = {"default": 20}

    def rate_for(self, region):
        return self.RATES.get(region, self.RATES["default"])
