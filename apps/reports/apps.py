from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "apps.reports"
    label = "reports"

    def ready(self) -> None:
        from apps.reports.current_prices import current_flavor_price
        from apps.reports.recorder import CHECKPOINT_SUBSCRIBER, SUBSCRIBER, lag_seconds
        from core.observability.collectors import register_gauge
        from core.prices import use_price_reader
        from informer import registry

        # A job's quote prices it as the reports do (``core.prices``).
        use_price_reader(current_flavor_price)

        # The informer hands the recorder every Workload event.
        registry.subscribe(SUBSCRIBER)
        # ... and every batch pod's, for the checkpoints their trainers report on stopping.
        registry.subscribe(CHECKPOINT_SUBSCRIBER)

        register_gauge(
            "qm_history_recorder_lag_seconds",
            "Seconds since the Workload history recorder last saved its cursor "
            "(after each batch of events or relist), read from the database at scrape time.",
            lag_seconds,
        )
