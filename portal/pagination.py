from django.conf import settings
from rest_framework.pagination import PageNumberPagination


class DefaultPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request):  # read per request so override_settings works
        self.page_size = settings.API_PAGE_SIZE
        return super().get_page_size(request)
