"""Standard claims for the provider's users (OIDC_USERINFO).

Django's user has no "email verified" flag: a user is verified when it belongs to the
EMAIL_VERIFIED_GROUP group, which provision.py manages from the config's `email_verified`.
"""

EMAIL_VERIFIED_GROUP = "email_verified"


def userinfo(claims, user):
    full_name = " ".join(part for part in (user.first_name, user.last_name) if part)
    claims["name"] = full_name
    claims["given_name"] = user.first_name
    claims["family_name"] = user.last_name
    claims["preferred_username"] = user.get_username()
    claims["email"] = user.email
    claims["email_verified"] = user.groups.filter(name=EMAIL_VERIFIED_GROUP).exists()
    return claims
