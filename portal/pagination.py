from django.conf import settings
from rest_framework.pagination import PageNumberPagination

from core.errors import InvalidInput


class DefaultPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request):  # read per request so override_settings works
        self.page_size = settings.API_PAGE_SIZE
        asked = request.query_params.get(self.page_size_query_param)
        if asked is not None and not _is_whole_number_within(asked, self.max_page_size):
            # DRF would quietly fall back to the default size: a typo would look like an answer.
            raise InvalidInput(
                {
                    self.page_size_query_param: [
                        f"must be a whole number from 1 to {self.max_page_size}, e.g. page_size=100"
                    ]
                }
            )
        return super().get_page_size(request)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size)
        return parameters


def _is_whole_number_within(text: str, largest: int) -> bool:
    return text.isascii() and text.isdigit() and 1 <= int(text) <= largest
