"""Prepares the provider's database: migrate, one RSA signing key, users and clients.

    VENV/bin/python provision.py CONFIG_JSON      (OIDC_DATA_DIR must be set)

Idempotent: users and clients are created or updated to match the config (passwords
included); the RSA key is created only when there is none. See README.md for the format.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "strata_oidc.settings")


def main(argv):
    if len(argv) != 2:
        print("usage: provision.py CONFIG_JSON", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        config = json.load(f)

    data_dir = os.environ.get("OIDC_DATA_DIR")
    if not data_dir:
        print("provision.py: OIDC_DATA_DIR is not set", file=sys.stderr)
        return 2
    os.makedirs(data_dir, exist_ok=True)

    import django

    django.setup()

    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.db import transaction

    from oidc_provider.models import Client, ResponseType, RSAKey
    from strata_oidc.claims import EMAIL_VERIFIED_GROUP

    call_command("migrate", verbosity=0, interactive=False)
    if not RSAKey.objects.exists():
        call_command("creatersakey")

    with transaction.atomic():
        verified, _ = Group.objects.get_or_create(name=EMAIL_VERIFIED_GROUP)
        for spec in config.get("users", []):
            user, _ = User.objects.get_or_create(username=spec["username"])
            user.set_password(spec["password"])
            user.email = spec.get("email", "")
            user.first_name = spec.get("first_name", "")
            user.last_name = spec.get("last_name", "")
            user.is_active = spec.get("is_active", True)
            user.save()
            if spec.get("email_verified", True):
                user.groups.add(verified)
            else:
                user.groups.remove(verified)
            print("user %s: sub %s" % (user.username, user.pk))

        for spec in config.get("clients", []):
            client, _ = Client.objects.get_or_create(client_id=spec["client_id"])
            client.name = spec.get("name", spec["client_id"])
            client.client_type = spec.get("client_type", "confidential")
            client.client_secret = spec.get("client_secret", "")
            client.jwt_alg = spec.get("jwt_alg", "RS256")
            client.require_consent = spec.get("require_consent", False)
            client.reuse_consent = spec.get("reuse_consent", True)
            client.redirect_uris = spec["redirect_uris"]
            client.post_logout_redirect_uris = spec.get("post_logout_redirect_uris", [])
            client.scope = spec.get("scopes", ["openid", "profile", "email"])
            client.save()
            values = spec.get("response_types", ["code"])
            types = list(ResponseType.objects.filter(value__in=values))
            if len(types) != len(set(values)):
                raise SystemExit("provision.py: unknown response type in %r" % (values,))
            client.response_types.set(types)
            print("client %s" % client.client_id)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
