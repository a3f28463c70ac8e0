// UI-queue simulation and measurement (see issue 5).
