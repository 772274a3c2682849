# Account helpers (sourced): /etc/passwd, /etc/shadow, /etc/group and ~/.ssh, for the personality
# set-up, cloud-init (password, chpasswd, ssh_authorized_keys) and the chpasswd the guest agent runs.
# busybox has no useradd or chpasswd; these edit the files the way those tools would.

# Days since the epoch, shadow's unit for the last password change.
shadow_today() { echo $(($(date +%s) / 86400)); }

# Replaces field $2 (1-based) of the line of user $1 in file $3 with $4.
set_field() {
  awk -F: -v OFS=: -v user="$1" -v field="$2" -v value="$4" '$1 == user { $field = value } { print }' \
    "$3" >"$3.new" && cat "$3.new" >"$3" && rm -f "$3.new"
}

user_exists() { awk -F: -v user="$1" '$1 == user { found = 1 } END { exit !found }' /etc/passwd; }

home_of() { awk -F: -v user="$1" '$1 == user { print $6; exit }' /etc/passwd; }

# "uid:gid" of a user (busybox chown takes no "user:" shorthand for the login group).
ids_of() { awk -F: -v user="$1" '$1 == user { print $3 ":" $4; exit }' /etc/passwd; }

# add_user NAME UID [GROUP...]: a user with its own group, /home/NAME, /bin/sh, a locked password,
# and membership in the given (existing) groups.
add_user() {
  name=$1 id=$2
  shift 2
  user_exists "$name" && return 0
  echo "$name:x:$id:$id:$name:/home/$name:/bin/sh" >>/etc/passwd
  echo "$name:x:$id:" >>/etc/group
  echo "$name:*:$(shadow_today):0:99999:7:::" >>/etc/shadow
  for group in "$@"; do
    awk -F: -v OFS=: -v group="$group" -v user="$name" \
      '$1 == group { $4 = $4 == "" ? user : $4 "," user } { print }' /etc/group >/etc/group.new &&
      cat /etc/group.new >/etc/group && rm -f /etc/group.new
  done
  mkdir -p "/home/$name"
  chown "$id:$id" "/home/$name"
  chmod 700 "/home/$name"
}

# set_password_hash NAME HASH: HASH as crypt(3) writes it; empty means no password at all.
set_password_hash() {
  user_exists "$1" || return 1
  set_field "$1" 2 /etc/shadow "$2"
  set_field "$1" 3 /etc/shadow "$(shadow_today)"
}

# set_password NAME PASSWORD: hashes PASSWORD with SHA-512 (what both busybox login and dropbear's
# libcrypt check); an empty PASSWORD removes the password.
set_password() {
  if [ -z "$2" ]; then
    set_password_hash "$1" ""
  else
    set_password_hash "$1" "$(printf '%s\n' "$2" | mkpasswd -m sha512 -P 0)"
  fi
}

# A password as cloud-init's chpasswd takes it: crypt(3) hashes ($1$, $5$, $6$, $y$, ...) as they are.
is_password_hash() {
  case "$1" in '$1$'* | '$2'[aby]'$'* | '$5$'* | '$6$'* | '$y$'*) return 0 ;; *) return 1 ;; esac
}

# add_authorized_keys NAME: appends the keys on stdin (one a line) to ~NAME/.ssh/authorized_keys,
# with the owner and modes sshd (dropbear) insists on; prints how many it added.
add_authorized_keys() {
  home=$(home_of "$1")
  [ -n "$home" ] || return 1
  mkdir -p "$home/.ssh"
  added=0
  while IFS= read -r key; do
    [ -n "$key" ] || continue
    echo "$key" >>"$home/.ssh/authorized_keys"
    added=$((added + 1))
  done
  chmod 700 "$home/.ssh"
  chmod 600 "$home/.ssh/authorized_keys" 2>/dev/null
  chown -R "$(ids_of "$1")" "$home/.ssh"
  echo "$added"
}
