from django.urls import path

from apps.users import views

app_name = "users"

urlpatterns = [
    path("administration/users/", views.user_list, name="list"),
    path("administration/users/new/", views.user_new, name="new"),
    path("administration/users/<int:pk>/disable/", views.user_disable, name="disable"),
    path("administration/users/<int:pk>/enable/", views.user_enable, name="enable"),
    path(
        "administration/users/<int:pk>/stop-notebooks/",
        views.user_stop_notebooks,
        name="stop-notebooks",
    ),
]
