"""HTTP views."""

from . import ShoppingCart
from .models import Profile
from .security import require_login, sanitize_user_input


@require_login
def profile_page(request):
    """Render the user profile page."""
    profile = Profile(request.user, bio=request.params.get("bio", ""))
    return profile.render()


@require_login
def update_profile(request):
    profile = request.user.profile
    profile.update_bio(request.params["bio"])
    return profile.render()


def checkout(request):
    cart = ShoppingCart(request.user)
    for name, price in request.params["items"]:
        cart.add(sanitize_user_input(name), price)
    return place_order(cart, request.params.get("discount", 0))


def place_order(cart, discount):
    total = cart.total(discount)
    return {"user": cart.user.name, "total": total.cents}
