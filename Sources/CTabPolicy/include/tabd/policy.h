/* tabd policy plugin ABI — placeholder, see docs/plugins.md once written. */
#ifndef TABD_POLICY_H
#define TABD_POLICY_H
#endif
