set -u
J="python3 tests/gpu/judge_check.py --commit 2dac198 --task-timeout 150"
D=$OUT/d4; mkdir -p $D
for i in 0 1 2; do ( CUDA_VISIBLE_DEVICES=$i $J --out $D/fp22_$i.jsonl --sections pairs --pairs .device/p/fp22_$i.txt --budget-s 200 ) > $D/g$i.log 2>&1 & done
( CUDA_VISIBLE_DEVICES=3 $J --out $D/pool.jsonl --sections pairs --pairs .device/p/pool.txt --budget-s 180 ) > $D/g3.log 2>&1 &
wait
for f in $D/*.log; do echo "== $f"; grep -B40 -A6 "^== summary" $f | grep -v "^\[kwb" | cut -c1-200; done
tar -czf $OUT/d4.tar.gz -C $OUT d4 && rm -rf $D
