// The registry of backends and devices (filled in with the backend system).
