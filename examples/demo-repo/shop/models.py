"""Users and their profiles."""

from .security import sanitize_user_input


class Model:
    """Base class of stored objects."""

    def save(self):
        return True


class User(Model):
    def __init__(self, name, email):
        self.name = name
        self.email = email
        self.profile = Profile(self)

    def display_name(self):
        return sanitize_user_input(self.name)


class Profile(Model):
    """A user's public profile page."""

    def __init__(self, user, bio=""):
        self.user = user
        self.bio = bio

    def update_bio(self, text):
        self.bio = sanitize_user_input(text, max_length=500)
        return self.save()

    def render(self):
        # XSS: the bio is sanitized when stored, the name when displayed.
        return "<h1>%s</h1><p>%s</p>" % (self.user.display_name(), self.bio)
