set -u
J="python3 tests/gpu/judge_check.py --commit 2dac198 --task-timeout 60"
D=$OUT/diag; mkdir -p $D
( CUDA_VISIBLE_DEVICES=2 KWB_FRAMES_DUMP=$D/f_mid.jsonl $J --out $D/relubig_mid.jsonl --sections pairs --pairs .device/p/relubig.txt --budget-s 170 ) > $D/g2.log 2>&1 &
( CUDA_VISIBLE_DEVICES=3 KWB_X_MID_CAP_GIB=16 KWB_FRAMES_DUMP=$D/f_cap16.jsonl $J --out $D/relubig_cap16.jsonl --sections pairs --pairs .device/p/relubig.txt --budget-s 170 ) > $D/g3.log 2>&1 &
JOBS="styles latest" KC=2dac198 T=490 bash tests/gpu/gpu_check.sh 2>&1 | tail -80
wait
for f in $D/*.log; do echo "== $f"; grep -A14 "^== summary" $f; done
gzip -f $D/*.jsonl 2>/dev/null; tar -czf $OUT/diag.tar.gz -C $OUT diag && rm -rf $D
