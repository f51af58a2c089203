// Fail closed: a file that does not parse is refused, not guessed at.
export const broken = 1 +; // expect: syntax error
