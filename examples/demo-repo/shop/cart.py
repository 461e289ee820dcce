"""The shopping cart."""

from .pricing import Money, TaxTable, apply_discount


class Cart:
    def __init__(self, user):
        self.user = user
        self.items = []
        self.taxes = TaxTable()

    def add(self, name, price_cents, quantity=1):
        self.items.append((name, Money(price_cents), quantity))

    def subtotal(self):
        total = Money(0)
        for _, price, quantity in self.items:
            total = total + Money(price.cents * quantity)
        return total

    def total(self, discount=0, region="default"):
        amount = apply_discount(self.subtotal(), discount)
        rate = self.taxes.rate_for(region)
        return Money(amount.cents * (100 + rate) // 100)
