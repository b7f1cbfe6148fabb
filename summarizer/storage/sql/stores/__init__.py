"""The store classes the composition root builds over a `Database`: the storage port's shared
`SqlStore`, the conversation store, the alert store and the cost store."""
