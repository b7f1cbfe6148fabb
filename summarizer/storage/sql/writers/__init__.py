"""The units of work that change the database: recording, the queue, summary versions, alerts, breakers,
steering, followed files and the update's commit."""
