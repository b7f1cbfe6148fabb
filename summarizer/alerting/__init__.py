"""Alerting: the seed's rules evaluated on a schedule, one alert row per incident, and delivery to sinks."""
