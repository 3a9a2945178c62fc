from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # The issuer is SITE_URL + "/openid" (django-oidc-provider derives it from this mount point).
    path("openid/", include("oidc_provider.urls", namespace="oidc_provider")),
]
