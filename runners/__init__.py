"""Responders and the stream: media clock, sampling, protocols, backends, batch queue, CLI."""
