# zsh_complete.zsh FPATH_DIR WORK_DIR LINE: the candidates zsh's completion
# system offers when TAB is pressed after LINE, in an interactive zsh (zpty)
# whose $fpath starts with FPATH_DIR (where _streamlife is). Every candidate
# that reaches compadd, one per line, sorted and unique.
zmodload zsh/zpty
fpath_dir=$1 work=$2 line=$3
zpty -b completer 'zsh -f -i'
zpty -w completer "PS1='%% '; fpath=($fpath_dir \$fpath); autoload -U compinit; compinit -u -d $work/zcompdump"
zpty -w completer "compadd() { builtin compadd -O __hits \"\$@\"; print -rl -- \"\${__hits[@]}\" >> $work/hits; builtin compadd \"\$@\"; }"
zpty -w completer 'zstyle ":completion:*" menu no'
sleep 1
rm -f $work/hits
zpty -w -n completer "$line"$'\t'
# zpty has no "completion done" signal: wait until the candidates stop coming.
for i in {1..50}; do
  sleep 0.2
  [[ -s $work/hits ]] && { sleep 0.5; break; }
done
zpty -d completer
[[ -f $work/hits ]] && sort -u $work/hits
