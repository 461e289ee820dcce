from shop.models import User
from shop.views import place_order
from shop.cart import Cart


def test_place_order():
    cart = Cart(User("ann", "ann@example.com"))
    cart.add("book", 1000)
    assert place_order(cart, 10)["total"] == 1080
