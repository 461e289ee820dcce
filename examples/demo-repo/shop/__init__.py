"""A tiny shop: profiles, carts and checkout."""

from .models import User, Profile
from .cart import Cart as ShoppingCart

__all__ = ["User", "Profile", "ShoppingCart"]
