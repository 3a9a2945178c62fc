"""Settings of the throwaway OpenID Connect provider the tests start (see ../README.md).

Environment:
  OIDC_DATA_DIR                where the SQLite database lives (required)
  OIDC_SITE_URL                e.g. http://127.0.0.1:PORT; the issuer is this plus /openid
  OIDC_IDTOKEN_EXPIRE          ID token lifetime in seconds (default 600)
  OIDC_IDTOKEN_INCLUDE_CLAIMS  "1" (default) puts profile/email claims in the ID token too
"""
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("OIDC_DATA_DIR") or BASE_DIR / ".data")

SECRET_KEY = "strata-test-oidc-provider-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oidc_provider",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]

ROOT_URLCONF = "strata_oidc.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DATA_DIR / "db.sqlite3",
        "OPTIONS": {"timeout": 20},
    }
}

# Test users only: a fast hasher keeps provisioning and each login well under a second.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
USE_I18N = False
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/accounts/login/"

# Plain http on loopback: no Secure cookies, no HTTPS redirects.
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django": {"handlers": ["console"], "level": "WARNING"},
        "oidc_provider": {"handlers": ["console"], "level": "DEBUG"},
    },
}

# --- django-oidc-provider ---
SITE_URL = os.environ.get("OIDC_SITE_URL") or None  # None: taken from each request's Host
OIDC_IDTOKEN_EXPIRE = int(os.environ.get("OIDC_IDTOKEN_EXPIRE") or 600)
OIDC_IDTOKEN_INCLUDE_CLAIMS = (os.environ.get("OIDC_IDTOKEN_INCLUDE_CLAIMS") or "1") == "1"
OIDC_USERINFO = "strata_oidc.claims.userinfo"
