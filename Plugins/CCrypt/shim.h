/* crypt_r(3): hashes a password with the salt and method of a stored hash ($6$… is
 * SHA-512, as `openssl passwd -6` makes). */
#include <crypt.h>
