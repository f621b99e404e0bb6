"""OmniInteract in the runners: its duplex protocol, native transcript, judge transport, scores, run outputs
and hooks."""
