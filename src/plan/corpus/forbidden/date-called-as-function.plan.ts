// Forbidden: Date() called as a function returns the current time as a string.
export const today = Date(); // expect: Date()
